// The content-addressed blob store: <root>/blobs/sha256/<hex>, one file per blob, named by
// the sha256 of its bytes. A blob enters only through BlobWriter, which streams into a temp
// file under <root>/tmp, hashes as it goes, fsyncs, and renames into place only when the
// digest is right: a blob whose bytes do not match its name is never stored, so never used.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "runtime/digest.h"

namespace k3c::runtime {

// One blob being written. Owns its temp file until commit() or destruction (which removes
// it). One thread at a time.
class BlobWriter {
 public:
  ~BlobWriter();
  BlobWriter(const BlobWriter&) = delete;
  BlobWriter& operator=(const BlobWriter&) = delete;

  Status write(const void* data, size_t size);
  uint64_t size() const { return size_; }
  // The digest of the content, once finish() has run ("" before).
  const std::string& digest() const { return digest_; }
  // Where the bytes are until commit() (for reading a staged file back).
  const std::string& temp_path() const { return temp_path_; }
  // Ends the stream: fsync, close, and the digest of the bytes (no longer writable after).
  Result<std::string> finish();
  // After finish(): moves the temp file to the blob's place. When `expected` is given and
  // differs from the content's digest, the blob is rejected (kInvalid naming both digests).
  Status commit(std::optional<std::string_view> expected = std::nullopt);

 private:
  friend class BlobStore;
  BlobWriter(std::string temp_path, std::string blobs_dir, int fd);

  std::string temp_path_;
  std::string blobs_dir_;
  int fd_ = -1;
  uint64_t size_ = 0;
  Sha256 hasher_;
  std::string digest_;  // set by finish()
};

// Thread-safe: every operation is a single filesystem step on its own files.
class BlobStore {
 public:
  // Creates <root>/blobs/sha256 and <root>/tmp if needed.
  static Result<std::unique_ptr<BlobStore>> open(const std::string& root);

  Result<std::unique_ptr<BlobWriter>> writer() const;
  // Stores `bytes`; returns the digest.
  Result<std::string> put(std::string_view bytes) const;

  bool has(std::string_view digest) const;
  uint64_t size_of(std::string_view digest) const;  // 0 when missing
  std::string path_of(std::string_view digest) const;
  // A small blob's bytes, re-verified against its digest (kCorrupt on mismatch).
  Result<std::string> read(std::string_view digest, size_t max_bytes) const;
  Status remove(std::string_view digest) const;
  Result<std::vector<std::string>> list() const;  // every stored digest
  const std::string& tmp_dir() const { return tmp_dir_; }

 private:
  BlobStore(std::string blobs_dir, std::string tmp_dir)
      : blobs_dir_(std::move(blobs_dir)), tmp_dir_(std::move(tmp_dir)) {}
  std::string blobs_dir_;
  std::string tmp_dir_;
};

}  // namespace k3c::runtime
