// The content-addressed blob store (see blob_store.h).
#include "runtime/blob_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "core/ids.h"
#include "runtime/files.h"

namespace k3c::runtime {

BlobWriter::BlobWriter(std::string temp_path, std::string blobs_dir, int fd)
    : temp_path_(std::move(temp_path)), blobs_dir_(std::move(blobs_dir)), fd_(fd) {}

BlobWriter::~BlobWriter() {
  if (fd_ >= 0) close(fd_);
  if (!temp_path_.empty()) unlink(temp_path_.c_str());  // not committed: nothing is kept
}

Status BlobWriter::write(const void* data, size_t size) {
  if (fd_ < 0) return error(Code::kInternal, "blob writer already finished");
  hasher_.update(data, size);
  size_ += size;
  const char* bytes = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd_, bytes, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_status("write " + temp_path_, errno);
    bytes += n;
    size -= static_cast<size_t>(n);
  }
  return Status::ok();
}

Result<std::string> BlobWriter::finish() {
  if (fd_ < 0) return error(Code::kInternal, "blob writer already finished");
  const int rc = fsync(fd_);
  const int err = errno;
  close(fd_);
  fd_ = -1;
  if (rc != 0) return errno_status("fsync " + temp_path_, err);
  digest_ = hasher_.finish();
  return digest_;
}

Status BlobWriter::commit(std::optional<std::string_view> expected) {
  if (digest_.empty()) return error(Code::kInternal, "blob writer not finished");
  if (temp_path_.empty()) return Status::ok();  // already committed
  if (expected && *expected != digest_) {
    return error(Code::kInvalid, "blob " + std::string(*expected) +
                                     ": digest mismatch (content is " + digest_ + ")");
  }
  const std::string target = blobs_dir_ + "/" + std::string(digest_hex(digest_));
  struct stat info;
  if (stat(target.c_str(), &info) == 0) {
    // Same name, so same bytes (it was verified when it was stored): keep the stored one.
    unlink(temp_path_.c_str());
  } else if (rename(temp_path_.c_str(), target.c_str()) != 0) {
    return errno_status("rename " + temp_path_, errno);
  }
  temp_path_.clear();
  return sync_dir(blobs_dir_);
}

Result<std::unique_ptr<BlobStore>> BlobStore::open(const std::string& root) {
  RETURN_IF_ERROR(make_dirs(root + "/blobs/sha256"));
  RETURN_IF_ERROR(make_dirs(root + "/tmp"));
  return std::unique_ptr<BlobStore>(new BlobStore(root + "/blobs/sha256", root + "/tmp"));
}

Result<std::unique_ptr<BlobWriter>> BlobStore::writer() const {
  std::string temp = tmp_dir_ + "/blob-" + new_uuid();
  const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return errno_status("create " + temp, errno);
  return std::unique_ptr<BlobWriter>(new BlobWriter(std::move(temp), blobs_dir_, fd));
}

Result<std::string> BlobStore::put(std::string_view bytes) const {
  ASSIGN_OR_RETURN(std::unique_ptr<BlobWriter> w, writer());
  RETURN_IF_ERROR(w->write(bytes.data(), bytes.size()));
  ASSIGN_OR_RETURN(std::string digest, w->finish());
  RETURN_IF_ERROR(w->commit());
  return digest;
}

std::string BlobStore::path_of(std::string_view digest) const {
  return blobs_dir_ + "/" + std::string(digest_hex(digest));
}

bool BlobStore::has(std::string_view digest) const {
  if (!check_digest(digest, "blob").is_ok()) return false;
  struct stat info;
  return stat(path_of(digest).c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

uint64_t BlobStore::size_of(std::string_view digest) const {
  struct stat info;
  if (!check_digest(digest, "blob").is_ok() || stat(path_of(digest).c_str(), &info) != 0) return 0;
  return static_cast<uint64_t>(info.st_size);
}

Result<std::string> BlobStore::read(std::string_view digest, size_t max_bytes) const {
  RETURN_IF_ERROR(check_digest(digest, "blob"));
  ASSIGN_OR_RETURN(std::string bytes, read_file(path_of(digest), max_bytes));
  if (sha256_of(bytes) != digest) {
    return error(Code::kCorrupt, "blob " + std::string(digest) + " is damaged on disk");
  }
  return bytes;
}

Status BlobStore::remove(std::string_view digest) const {
  RETURN_IF_ERROR(check_digest(digest, "blob"));
  if (unlink(path_of(digest).c_str()) != 0 && errno != ENOENT) {
    return errno_status("remove blob " + std::string(digest), errno);
  }
  return Status::ok();
}

Result<std::vector<std::string>> BlobStore::list() const {
  ASSIGN_OR_RETURN(std::vector<std::string> names, list_dir(blobs_dir_));
  std::vector<std::string> digests;
  for (const std::string& name : names) {
    std::string digest = "sha256:" + name;
    if (check_digest(digest, "blob").is_ok()) digests.push_back(std::move(digest));
  }
  return digests;
}

}  // namespace k3c::runtime
