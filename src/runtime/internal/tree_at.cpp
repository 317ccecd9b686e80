// Root-confined tree operations (see tree_at.h).
#include "runtime/internal/tree_at.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "runtime/files.h"

namespace k3c::runtime::internal {

Fd::~Fd() {
  if (fd_ >= 0) close(fd_);
}

Fd& Fd::operator=(Fd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = other.release();
  }
  return *this;
}

Result<Fd> open_in_root(int root_fd, std::string_view path, int flags) {
  open_how how{};
  how.flags = static_cast<uint64_t>(flags | O_CLOEXEC);
  how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
  const std::string p = path.empty() ? std::string(".") : std::string(path);
  for (;;) {
    const long fd = syscall(SYS_openat2, root_fd, p.c_str(), &how, sizeof how);
    if (fd >= 0) return Fd(static_cast<int>(fd));
    if (errno == EINTR || errno == EAGAIN) continue;  // EAGAIN: a racing rename; retry
    if (errno == ENOSYS) {
      return error(Code::kInternal, "openat2 is not available (Linux 5.6 or newer is needed)");
    }
    return errno_status("open " + p + " in the snapshot", errno);
  }
}

namespace {

// `path` with "." and empty components dropped and ".." applied, never above the root.
std::string clamp_lexically(std::string_view path) {
  std::vector<std::string_view> parts;
  for (size_t start = 0; start <= path.size();) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(start, end - start);
    start = end + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(part);
  }
  std::string clean;
  for (std::string_view part : parts) clean += (clean.empty() ? "" : "/") + std::string(part);
  return clean;
}

// Linux's own limit on symlinks followed in one lookup.
constexpr int kMaxSymlinks = 40;

Result<Fd> make_dirs_following(int root_fd, const std::string& path, int links) {
  Result<Fd> whole = open_in_root(root_fd, path, O_PATH | O_DIRECTORY);
  if (whole.is_ok() || whole.status().code() != Code::kNotFound) return whole;
  ASSIGN_OR_RETURN(Fd dir, open_in_root(root_fd, "", O_PATH | O_DIRECTORY));
  size_t start = 0;
  while (start < path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    const std::string name = path.substr(start, end - start);
    const std::string prefix = path.substr(0, end);
    if (mkdirat(dir.get(), name.c_str(), 0755) != 0 && errno != EEXIST) {
      return errno_status("mkdir " + prefix, errno);
    }
    // Each step resolves the prefix again inside the root, so a symlink met on the way
    // (even one created by this same layer) cannot lead out.
    Result<Fd> next = open_in_root(root_fd, prefix, O_PATH | O_DIRECTORY);
    if (!next.is_ok() && next.status().code() == Code::kNotFound && links < kMaxSymlinks) {
      // A symlink to a directory that does not exist yet: make its target (inside the
      // root), as tar does when it extracts through such a link.
      char target[4096];
      const ssize_t n = readlinkat(dir.get(), name.c_str(), target, sizeof target - 1);
      if (n > 0) {
        const std::string link(target, static_cast<size_t>(n));
        const std::string base = link.starts_with("/") ? link : path.substr(0, start) + link;
        return make_dirs_following(root_fd, clamp_lexically(base + path.substr(end)), links + 1);
      }
    }
    if (!next.is_ok()) {
      return error(Code::kInvalid,
                   "cannot use " + prefix + " as a directory: " + next.status().message());
    }
    dir = std::move(next).value();
    start = end + 1;
  }
  return dir;
}

}  // namespace

Result<Fd> make_dirs_in_root(int root_fd, std::string_view path) {
  return make_dirs_following(root_fd, std::string(path), 0);
}

Status remove_at(int dir_fd, const std::string& name) {
  if (unlinkat(dir_fd, name.c_str(), 0) == 0 || errno == ENOENT) return Status::ok();
  if (errno != EISDIR && errno != EPERM) return errno_status("remove " + name, errno);
  const int child = openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (child < 0) return errno_status("open " + name, errno);
  DIR* dir = fdopendir(child);
  if (dir == nullptr) {
    const int err = errno;
    close(child);
    return errno_status("open " + name, err);
  }
  Status status;
  while (dirent* entry = readdir(dir)) {
    const std::string sub = entry->d_name;
    if (sub == "." || sub == "..") continue;
    status = remove_at(dirfd(dir), sub);
    if (!status.is_ok()) break;
  }
  closedir(dir);
  RETURN_IF_ERROR(status);
  if (unlinkat(dir_fd, name.c_str(), AT_REMOVEDIR) != 0) {
    return errno_status("remove " + name, errno);
  }
  return Status::ok();
}

}  // namespace k3c::runtime::internal
