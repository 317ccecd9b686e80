// Whole-file reads, atomic writes, staging directories and directory creation over POSIX
// calls (std::filesystem only in its non-throwing forms).
#include "pki/internal/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <memory>
#include <system_error>
#include <vector>

namespace k3c::pki::internal {
namespace {

Status errno_status(int err, const std::string& what) {
  Code code = (err == ENOSPC || err == EDQUOT) ? Code::kStorageFull : Code::kInternal;
  return error(code, what + ": " + std::error_code(err, std::generic_category()).message());
}

// Closes a descriptor when it goes out of scope.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  // Closes now, reporting the error that close() may carry for buffered writes.
  int close() {
    int rc = ::close(fd_);
    fd_ = -1;
    return rc;
  }

 private:
  int fd_;
};

Status write_all(int fd, std::string_view data, const std::string& path) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_status(errno, "writing " + path);
    data.remove_prefix(static_cast<size_t>(n));
  }
  return Status::ok();
}

Status fsync_dir(const std::string& dir) {
  Fd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) return errno_status(errno, "opening directory " + dir);
  if (::fsync(fd.get()) != 0) return errno_status(errno, "syncing directory " + dir);
  return Status::ok();
}

}  // namespace

std::string parent_dir(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

Result<std::optional<std::string>> read_file_if_exists(const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT) return std::optional<std::string>();
    return errno_status(errno, "opening " + path);
  }
  std::string data;
  char buf[8192];
  for (;;) {
    ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_status(errno, "reading " + path);
    if (n == 0) break;
    data.append(buf, static_cast<size_t>(n));
  }
  return std::optional<std::string>(std::move(data));
}

Result<bool> file_exists(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) return true;
  if (errno == ENOENT) return false;
  return errno_status(errno, "stat " + path);
}

Status write_file_atomic(const std::string& path, std::string_view data, unsigned mode,
                         Durability durability) {
  bool sync = durability == Durability::kSynced;
  std::string dir = parent_dir(path);
  std::string tmp = path + ".tmp-XXXXXX";
  Fd fd(::mkostemp(tmp.data(), O_CLOEXEC));
  if (fd.get() < 0) return errno_status(errno, "creating a temporary file in " + dir);
  // From here on the temp file is removed unless the rename below takes it.
  auto fail = [&tmp](Status status) {
    ::unlink(tmp.c_str());
    return status;
  };
  if (::fchmod(fd.get(), mode) != 0) return fail(errno_status(errno, "chmod " + tmp));
  if (Status s = write_all(fd.get(), data, tmp); !s) return fail(s);
  if (sync && ::fsync(fd.get()) != 0) return fail(errno_status(errno, "syncing " + tmp));
  if (fd.close() != 0) return fail(errno_status(errno, "closing " + tmp));
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    return fail(errno_status(errno, "renaming " + tmp + " to " + path));
  }
  return sync ? fsync_dir(dir) : Status::ok();
}

namespace {

// The names in `dir`.
Result<std::vector<std::string>> list_dir(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  // increment(ec) rather than ++: the operator throws.
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    names.push_back(it->path().filename().string());
  }
  if (ec) return error(Code::kInternal, "listing " + dir + ": " + ec.message());
  return names;
}

}  // namespace

Result<std::string> make_staging_dir(const std::string& final_path) {
  std::string parent = parent_dir(final_path);
  std::string prefix = final_path.substr(final_path.find_last_of('/') + 1) + ".new-";
  ASSIGN_OR_RETURN(std::vector<std::string> names, list_dir(parent));
  for (const std::string& name : names) {
    if (!name.starts_with(prefix)) continue;
    std::error_code ec;
    std::filesystem::remove_all(parent + "/" + name, ec);
    if (ec) return error(Code::kInternal, "removing " + parent + "/" + name + ": " + ec.message());
  }
  std::string staging = final_path + ".new-XXXXXX";
  if (::mkdtemp(staging.data()) == nullptr) {
    return errno_status(errno, "creating a staging directory beside " + final_path);
  }
  return staging;
}

Status commit_staging_dir(const std::string& staging, const std::string& final_path) {
  ASSIGN_OR_RETURN(std::vector<std::string> names, list_dir(staging));
  std::vector<std::string> files;
  for (const std::string& name : names) files.push_back(staging + "/" + name);
  // Start writeback of every file first, then wait for each: the writes overlap instead of
  // paying one device round trip per file.
  std::vector<std::unique_ptr<Fd>> fds;
  for (const std::string& file : files) {
    fds.push_back(std::make_unique<Fd>(::open(file.c_str(), O_RDONLY | O_CLOEXEC)));
    if (fds.back()->get() < 0) return errno_status(errno, "opening " + file);
    ::sync_file_range(fds.back()->get(), 0, 0, SYNC_FILE_RANGE_WRITE);  // a hint; fsync decides
  }
  for (size_t i = 0; i < files.size(); ++i) {
    if (::fsync(fds[i]->get()) != 0) return errno_status(errno, "syncing " + files[i]);
  }
  RETURN_IF_ERROR(fsync_dir(staging));
  if (::rename(staging.c_str(), final_path.c_str()) != 0) {
    return errno_status(errno, "renaming " + staging + " to " + final_path);
  }
  return fsync_dir(parent_dir(final_path));
}

Status make_dirs(const std::string& path, unsigned mode) {
  if (path.empty()) return error(Code::kInvalid, "empty directory path");
  // Walk the components left to right, creating each missing one.
  for (size_t end = path.find('/', 1);; end = path.find('/', end + 1)) {
    std::string prefix = path.substr(0, end);
    if (::mkdir(prefix.c_str(), mode) != 0 && errno != EEXIST) {
      return errno_status(errno, "creating directory " + prefix);
    }
    if (end == std::string::npos) break;
  }
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return errno_status(errno, "stat " + path);
  if (!S_ISDIR(st.st_mode)) return error(Code::kInvalid, path + " exists and is not a directory");
  return Status::ok();
}

Status set_mode(const std::string& path, unsigned mode) {
  if (::chmod(path.c_str(), mode) != 0) return errno_status(errno, "chmod " + path);
  return Status::ok();
}

}  // namespace k3c::pki::internal
