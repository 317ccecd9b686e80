// RAII over libarchive's reader, set up the one way the image code reads archives: tar (any
// of libarchive's tar dialects) behind no compression, gzip or zstd; or, for hashing a
// layer's uncompressed bytes, the "raw" format behind the same filters.
#pragma once

#include <archive.h>
#include <archive_entry.h>

#include <memory>
#include <string>
#include <string_view>

#include "core/status.h"

namespace k3c::runtime::internal {

struct ArchiveCloser {
  void operator()(archive* a) const { archive_read_free(a); }
};
using ArchivePtr = std::unique_ptr<archive, ArchiveCloser>;

enum class ArchiveFormat { kTar, kRaw };

// Opens `path` (already open as `fd` when fd >= 0; the caller keeps owning it). `what` names
// the file in errors.
Result<ArchivePtr> open_archive(const std::string& path, ArchiveFormat format, int fd = -1);

// libarchive's error text for `a`, prefixed with `what`, as kInvalid (bad input).
Status archive_status(archive* a, std::string_view what);

// The entry's path made relative and checked: leading "/" and "./" dropped, "." components
// removed; kInvalid when a ".." component would climb out, or when it is empty.
Result<std::string> clean_entry_path(std::string_view raw, std::string_view what);

// The sha256 of the decompressed stream of `path` (a layer's diff_id).
Result<std::string> uncompressed_digest(const std::string& path);

// "tar", "tar+gzip" or "tar+zstd" from the first bytes of the file; kInvalid otherwise.
Result<std::string> layer_compression(const std::string& path);

}  // namespace k3c::runtime::internal
