// Manifests as registries serve them: OCI image index and Docker manifest list (one entry per
// platform), OCI image manifest and Docker schema 2 (a config and layers). Schema 1 is
// refused, as containerd 2 does.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "runtime/internal/import_plan.h"

namespace k3c::runtime::registry {

inline constexpr std::string_view kOciIndex = "application/vnd.oci.image.index.v1+json";
inline constexpr std::string_view kDockerList =
    "application/vnd.docker.distribution.manifest.list.v2+json";
inline constexpr std::string_view kOciManifest = "application/vnd.oci.image.manifest.v1+json";
inline constexpr std::string_view kDockerManifest =
    "application/vnd.docker.distribution.manifest.v2+json";
// The Accept header of a manifest request: every type above, best first.
std::string manifest_accept();

struct Descriptor {
  std::string media_type;
  std::string digest;
  int64_t size = 0;
  internal::Platform platform;  // index entries only
};

struct Manifest {
  bool is_index = false;
  std::string media_type;
  std::vector<Descriptor> manifests;  // an index's entries
  Descriptor config;                  // an image manifest's config
  std::vector<Descriptor> layers;
};

// `content_type` is the answer's Content-Type (the document's own mediaType is used when it
// is missing or generic). kInvalid naming what is wrong.
Result<Manifest> parse_manifest(std::string_view bytes, std::string_view content_type);

// The index entry for `host`: same os and architecture, and the variant that fits best (the
// same; else an entry or host without one; for arm, else the highest older one, v7 running
// v6 and v5 images). kNotFound listing what the index offers when nothing fits.
Result<Descriptor> select_platform(const std::vector<Descriptor>& entries,
                                   const internal::Platform& host);

}  // namespace k3c::runtime::registry
