// Applying one layer tarball (plain, gzip or zstd) onto a flattened tree, as the layers of an
// image stack: whiteouts (".wh.<name>") delete what lower layers made, an opaque marker
// (".wh..wh..opq") empties its directory of lower-layer content, everything else is created
// with its mode, ownership (as root), xattrs (where the filesystem allows), mtimes, hard
// links, symlinks and device nodes (as root). See doc/runtime.md for why trees are flattened.
//
// Containment: every path is resolved inside the tree (tree_at.h), a ".." component is
// rejected, and links and files are created with calls that never follow the final
// component, so no entry can write or link outside the tree.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"

namespace k3c::runtime::internal {

struct UnpackStats {
  uint64_t entries = 0;
  uint64_t skipped_devices = 0;  // device nodes not created (not root)
  uint64_t skipped_xattrs = 0;   // xattrs the filesystem or our privileges refused
};

// Applies the layer at `layer_path` onto the tree `root_fd`. The layer file is hashed as it is
// read: when its sha256 is not `expected_digest` the result is kCorrupt (and the caller must
// discard the tree).
Result<UnpackStats> apply_layer(int root_fd, const std::string& layer_path,
                                std::string_view expected_digest);

}  // namespace k3c::runtime::internal
