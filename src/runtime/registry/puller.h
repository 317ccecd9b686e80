// Pulling images from registries (OCI distribution / Docker Registry HTTP API v2) into the
// image store: resolve the reference on each endpoint in turn (mirrors, then the default),
// take the host's platform from an index, fetch the config and layers as blobs verified
// against their descriptors (digest and size; a mismatch is rejected and nothing stored), then
// register the image through ImageStore::add_pulled, which verifies again as imports do.
// Auth: the WWW-Authenticate Bearer challenge (anonymous, with basic credentials, or with an
// identity token) and Basic. Errors read like containerd's ("failed to pull and unpack image
// "docker.io/library/x:latest": failed to resolve reference ...").
//
// Thread-safety: pull() keeps no state between calls; any number may run at once (over a
// thread-safe transport).
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string_view>

#include "core/status.h"
#include "runtime/image_store.h"
#include "runtime/internal/import_plan.h"
#include "runtime/registry/registries_config.h"
#include "runtime/registry/transport.h"
#include "runtime/runtime_service.h"

namespace k3c::runtime::registry {

struct PullOptions {
  internal::Platform platform = internal::host_platform();
  std::chrono::milliseconds request_timeout{30000};               // manifests and tokens
  std::chrono::milliseconds blob_timeout{std::chrono::hours(2)};  // one blob, whole
  std::chrono::milliseconds idle_timeout{60000};  // no byte for this long ends any request
  size_t manifest_limit = 4 << 20;                // as containerd's limit on manifests
  size_t config_limit = 8 << 20;
  uint64_t layer_limit = uint64_t{32} << 30;
};

class Puller {
 public:
  Puller(std::shared_ptr<HttpTransport> transport, RegistriesConfig config,
         PullOptions options = {});

  // Pulls `ref` into `store` and returns its record. `auth` (from imagePullSecrets) is used
  // for the registry's own host (its default endpoint, or a mirror endpoint on that host),
  // ahead of registries.yaml's credentials for it.
  Result<ImageRecord> pull(ImageStore& store, std::string_view ref,
                           const std::optional<RegistryAuth>& auth = std::nullopt) const;

 private:
  const std::shared_ptr<HttpTransport> transport_;
  const RegistriesConfig config_;
  const PullOptions options_;
};

}  // namespace k3c::runtime::registry
