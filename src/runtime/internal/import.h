// Importing one image tarball: stage every file (staged_archive.h), plan the images from the
// format's metadata (import_plan.h), verify everything (blob digests and sizes, config,
// layer count, each layer's uncompressed digest against the config's diff_ids), and only
// then commit the blobs. Any failure before the commit leaves the blob store untouched.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "runtime/blob_store.h"
#include "runtime/image_record.h"

namespace k3c::runtime::internal {

// The records of the images in the tarball, their blobs committed; the caller adds them to
// the index. kInvalid (or kNotFound for a missing file) says what is wrong with the input.
Result<std::vector<ImageRecord>> import_tarball(const std::string& path, const BlobStore& blobs);

}  // namespace k3c::runtime::internal
