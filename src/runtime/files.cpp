// Filesystem helpers (see files.h).
#include "runtime/files.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include "core/ids.h"

namespace k3c::runtime {
namespace {

Status write_all(int fd, std::string_view bytes, const std::string& path) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_status("write " + path, errno);
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return Status::ok();
}

std::string parent_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// Removes everything inside the directory `fd` (which it closes).
Status empty_dir(int fd, const std::string& path) {
  DIR* dir = fdopendir(fd);
  if (dir == nullptr) {
    const int err = errno;
    close(fd);
    return errno_status("open " + path, err);
  }
  Status status;
  while (dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    if (unlinkat(dirfd(dir), name.c_str(), 0) == 0) continue;
    if (errno != EISDIR && errno != EPERM) {
      status = errno_status("remove " + path + "/" + name, errno);
      break;
    }
    const int child =
        openat(dirfd(dir), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (child < 0) {
      status = errno_status("open " + path + "/" + name, errno);
      break;
    }
    status = empty_dir(child, path + "/" + name);
    if (!status.is_ok()) break;
    if (unlinkat(dirfd(dir), name.c_str(), AT_REMOVEDIR) != 0) {
      status = errno_status("remove " + path + "/" + name, errno);
      break;
    }
  }
  closedir(dir);
  return status;
}

}  // namespace

Status errno_status(std::string_view what, int err) {
  const Code code = err == ENOENT                    ? Code::kNotFound
                    : err == ENOSPC || err == EDQUOT ? Code::kStorageFull
                                                     : Code::kInternal;
  return error(code, std::string(what) + ": " + std::strerror(err));
}

Status make_dirs(const std::string& path, unsigned mode) {
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    const std::string prefix = slash == std::string::npos ? path : path.substr(0, slash);
    if (!prefix.empty() && mkdir(prefix.c_str(), mode) != 0 && errno != EEXIST) {
      return errno_status("mkdir " + prefix, errno);
    }
    if (slash == std::string::npos) break;
  }
  struct stat info;
  if (stat(path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
    return error(Code::kInternal, "mkdir " + path + ": not a directory");
  }
  return Status::ok();
}

Status write_file_atomic(const std::string& path, std::string_view bytes) {
  const std::string temp = path + ".tmp-" + new_uuid();
  const int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return errno_status("create " + temp, errno);
  Status status = write_all(fd, bytes, temp);
  if (status.is_ok() && fsync(fd) != 0) status = errno_status("fsync " + temp, errno);
  close(fd);
  if (status.is_ok() && rename(temp.c_str(), path.c_str()) != 0) {
    status = errno_status("rename " + temp, errno);
  }
  if (!status.is_ok()) {
    unlink(temp.c_str());
    return status;
  }
  return sync_dir(parent_of(path));
}

Status write_file_unsynced(const std::string& path, std::string_view bytes) {
  const std::string temp = path + ".tmp";
  const int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return errno_status("create " + temp, errno);
  Status status = write_all(fd, bytes, temp);
  close(fd);
  if (status.is_ok() && rename(temp.c_str(), path.c_str()) != 0) {
    status = errno_status("rename " + temp, errno);
  }
  if (!status.is_ok()) unlink(temp.c_str());
  return status;
}

Result<std::string> read_file(const std::string& path, size_t max_bytes) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno_status("open " + path, errno);
  std::string text;
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      close(fd);
      return errno_status("read " + path, err);
    }
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
    if (text.size() > max_bytes) {
      close(fd);
      return error(Code::kInvalid, path + ": larger than " + std::to_string(max_bytes) + " bytes");
    }
  }
  close(fd);
  return text;
}

Status sync_dir(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errno_status("open " + path, errno);
  const int rc = fsync(fd);
  const int err = errno;
  close(fd);
  return rc == 0 ? Status::ok() : errno_status("fsync " + path, err);
}

Status remove_tree(const std::string& path) {
  if (unlink(path.c_str()) == 0 || errno == ENOENT) return Status::ok();
  if (errno != EISDIR && errno != EPERM) return errno_status("remove " + path, errno);
  const int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return errno_status("open " + path, errno);
  RETURN_IF_ERROR(empty_dir(fd, path));
  if (rmdir(path.c_str()) != 0) return errno_status("remove " + path, errno);
  return Status::ok();
}

Result<std::vector<std::string>> list_dir(const std::string& path) {
  std::vector<std::string> names;
  DIR* dir = opendir(path.c_str());
  if (dir == nullptr) {
    if (errno == ENOENT) return names;
    return errno_status("open " + path, errno);
  }
  while (dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

namespace {

// How deep disk_usage descends. The tree may be a container's writable layer, which the
// container shapes: each level holds a descriptor and a stack frame here, so a directory
// nested a million deep must not exhaust either. What lies deeper is not counted.
constexpr int kMaxDepth = 256;

// Adds what `dir_fd` (an open directory on device `dev`, `depth` below the root `path`)
// holds below it; closes it.
Status add_tree(int dir_fd, dev_t dev, const std::string& path, int depth, std::set<ino_t>& seen,
                DiskUsage& usage) {
  DIR* dir = fdopendir(dir_fd);
  if (dir == nullptr) {
    close(dir_fd);
    return errno_status("open a directory below " + path, errno);
  }
  Status status = Status::ok();
  while (dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    struct stat st {};
    if (fstatat(dirfd(dir), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;  // gone
    if (st.st_dev != dev) continue;                // a mount below: not this tree's
    if (!seen.insert(st.st_ino).second) continue;  // a hard link counted already
    usage.bytes += static_cast<uint64_t>(st.st_blocks) * 512;
    usage.inodes += 1;
    if (!S_ISDIR(st.st_mode) || depth >= kMaxDepth) continue;
    const int child =
        openat(dirfd(dir), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (child < 0) continue;  // removed meanwhile
    status = add_tree(child, dev, path, depth + 1, seen, usage);
    if (!status.is_ok()) break;
  }
  closedir(dir);
  return status;
}

}  // namespace

Result<DiskUsage> disk_usage(const std::string& path) {
  DiskUsage usage;
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return usage;
    return errno_status("stat " + path, errno);
  }
  usage.bytes = static_cast<uint64_t>(st.st_blocks) * 512;
  usage.inodes = 1;
  if (!S_ISDIR(st.st_mode)) return usage;
  const int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return errno_status("open " + path, errno);
  std::set<ino_t> seen{st.st_ino};
  RETURN_IF_ERROR(add_tree(fd, st.st_dev, path, 0, seen, usage));
  return usage;
}

}  // namespace k3c::runtime
