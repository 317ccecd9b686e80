// The files of configMap, secret, downwardAPI and projected volumes, with upstream's modes
// (defaultMode 0644 unless set, an item's mode wins), key->path items and messages:
// `configmap "y" not found`, `configmap references non-existent config key: k`; an
// optional source that is missing gives no files.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "roles/kubelet/pods/config_source.h"
#include "roles/kubelet/pods/node_facts.h"
#include "roles/kubelet/volumes/atomic_writer.h"

namespace k3c::kubelet::volumes {

// A service-account token for (namespace, serviceAccountName, audience, expirationSeconds).
using TokenSource =
    std::function<Result<std::string>(const std::string& ns, const std::string& service_account,
                                      const std::string& audience, int64_t expiration_seconds)>;

struct PayloadInputs {
  const nlohmann::json& pod;
  ConfigSource& objects;
  const NodeFacts& node;
  TokenSource tokens;  // unset: a serviceAccountToken source fails
};

// `source` is the volume's configMap / secret / downwardAPI / projected object.
Result<Payload> config_map_payload(const nlohmann::json& source, int default_mode,
                                   const PayloadInputs& in);
Result<Payload> secret_payload(const nlohmann::json& source, int default_mode,
                               const PayloadInputs& in);
Result<Payload> downward_api_payload(const nlohmann::json& items, int default_mode,
                                     const PayloadInputs& in);
Result<Payload> projected_payload(const nlohmann::json& source, const PayloadInputs& in);

}  // namespace k3c::kubelet::volumes
