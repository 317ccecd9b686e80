// Writes a volume's files so a reader never sees half an update, as upstream's AtomicWriter:
// the files go into a fresh hidden "..<timestamp>" directory, the "..data" symlink is
// swapped to it with one rename, and each user-visible top-level name is a symlink through
// "..data". An unchanged payload writes nothing.
#pragma once

#include <map>
#include <string>

#include "core/status.h"

namespace k3c::kubelet::volumes {

struct FileProjection {
  std::string data;
  int mode = 0644;
  bool operator==(const FileProjection&) const = default;
};
// Relative path ("a/b.txt") -> content and mode.
using Payload = std::map<std::string, FileProjection>;

// kInvalid for a path that is absolute, has "..", or starts with "..".
Status validate_payload_path(const std::string& path);

// Makes `dir` (created when missing) hold exactly `payload`. `stamp` names the new hidden
// directory (e.g. a timestamp); true when something changed.
Result<bool> write_atomic(const std::string& dir, const Payload& payload, const std::string& stamp);

}  // namespace k3c::kubelet::volumes
