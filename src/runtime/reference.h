// Image references normalised as Kubernetes and containerd do (docker/distribution's
// ParseNormalizedNamed): `busybox` -> docker.io/library/busybox:latest, `foo/bar:1` ->
// docker.io/foo/bar:1, `localhost:5000/x` keeps its registry, `index.docker.io` becomes
// docker.io, and a reference without tag or digest gets `:latest`.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"

namespace k3c::runtime {

struct Reference {
  std::string domain;  // "docker.io", "localhost:5000"
  std::string path;    // "library/busybox"
  std::string tag;     // "latest"; "" when the reference has a digest and no tag
  std::string digest;  // "sha256:..." or ""

  std::string repository() const { return domain + "/" + path; }
  // "docker.io/library/busybox:latest", "docker.io/library/busybox@sha256:...".
  std::string to_string() const;
};

// kInvalid with the reason for anything docker/distribution would reject (upper case,
// empty components, a bare 64-hex id, a bad tag or digest).
Result<Reference> parse_reference(std::string_view text);

}  // namespace k3c::runtime
