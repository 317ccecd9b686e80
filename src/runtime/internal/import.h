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
#include "runtime/internal/import_plan.h"

namespace k3c::runtime::internal {

// The records of the images in the tarball, their blobs committed; the caller adds them to
// the index. kInvalid (or kNotFound for a missing file) says what is wrong with the input.
Result<std::vector<ImageRecord>> import_tarball(const std::string& path, const BlobStore& blobs);

// The common second half of every way an image enters the store (tarball imports and
// registry pulls): verifies the staged blobs of each plan (digests, sizes, config, each
// layer's diff_id) and, only when all are right, commits them. Errors are prefixed by `what`.
Result<std::vector<ImageRecord>> commit_images(StagedArchive& staged,
                                               const std::vector<PlannedImage>& plans,
                                               const BlobStore& blobs, const std::string& what);

}  // namespace k3c::runtime::internal
