// Reading an image tarball once, front to back: every regular file is streamed into a blob
// writer (temp file + sha256) and the small JSON files are also kept in memory. Nothing is
// committed to the blob store here; the importer commits only the blobs an image needs, and
// only after the whole tarball has been read without error (so a truncated tarball leaves
// nothing behind: the temp files go when the StagedArchive does).
#pragma once

#include <map>
#include <memory>
#include <string>

#include "core/status.h"
#include "runtime/blob_store.h"

namespace k3c::runtime::internal {

struct StagedFile {
  std::unique_ptr<BlobWriter> writer;  // finished, not committed
  std::string digest;                  // of its content
  uint64_t size = 0;
};

struct StagedArchive {
  std::map<std::string, StagedFile> files;     // cleaned archive path -> content
  std::map<std::string, std::string> small;    // JSON-ish files' bytes (manifest.json, ...)
  std::map<std::string, std::string> aliases;  // symlink or hard link path -> target path

  // The staged file at `path`, following aliases (docker's legacy save links repeated
  // layers); nullptr when absent.
  StagedFile* find(const std::string& path);
  // The bytes of a small file, or nullptr.
  const std::string* small_file(const std::string& path) const;
};

Result<StagedArchive> stage_archive(const std::string& path, const BlobStore& blobs);

}  // namespace k3c::runtime::internal
