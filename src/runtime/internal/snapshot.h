// Snapshots: one flattened root filesystem per layer chain, <snapshots>/<chain id hex>, made
// by applying the image's layers in order into a temp dir that is renamed into place once
// complete (so a snapshot that exists is whole). See doc/runtime.md for why flattened.
#pragma once

#include <string>

#include "core/status.h"
#include "runtime/blob_store.h"
#include "runtime/image_record.h"

namespace k3c::runtime::internal {

// The directory name of the snapshot of a chain ("empty" for an image without layers).
std::string snapshot_name(const std::string& chain_id);

// The snapshot of `image`, made on first use. The caller serialises calls.
Result<std::string> ensure_snapshot(const ImageRecord& image, const BlobStore& blobs,
                                    const std::string& snapshots_dir);

}  // namespace k3c::runtime::internal
