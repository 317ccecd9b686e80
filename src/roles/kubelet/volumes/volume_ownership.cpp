// fsGroup ownership of volumes (see volume_ownership.h).
#include "roles/kubelet/volumes/volume_ownership.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace k3c::kubelet::volumes {

namespace fs = std::filesystem;

namespace {

constexpr mode_t kReadWrite = 0660;
constexpr mode_t kReadOnly = 0440;
constexpr mode_t kExecute = 0110;

mode_t wanted_bits(bool directory, bool read_only) {
  mode_t mask = read_only ? kReadOnly : kReadWrite;
  if (directory) mask |= S_ISGID | kExecute;
  return mask;
}

Status change(const std::string& path, gid_t group, bool read_only) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return Status::ok();  // gone meanwhile (an atomic writer's swap)
    return error(Code::kInternal, "lstat " + path + ": " + std::strerror(errno));
  }
  if (::lchown(path.c_str(), static_cast<uid_t>(-1), group) != 0)
    return error(Code::kInternal, "chown " + path + ": " + std::strerror(errno));
  if (S_ISLNK(st.st_mode)) return Status::ok();  // a link's mode means nothing
  const mode_t mode = (st.st_mode & 07777) | wanted_bits(S_ISDIR(st.st_mode), read_only);
  if (::chmod(path.c_str(), mode) != 0)
    return error(Code::kInternal, "chmod " + path + ": " + std::strerror(errno));
  return Status::ok();
}

}  // namespace

Status set_volume_ownership(const std::string& dir, int64_t fs_group, bool read_only,
                            FsGroupChangePolicy policy) {
  if (fs_group < 0 || fs_group > 0xffffffffLL)
    return error(Code::kInvalid, "fsGroup " + std::to_string(fs_group) + " is out of range");
  const gid_t group = static_cast<gid_t>(fs_group);
  if (policy == FsGroupChangePolicy::kOnRootMismatch) {
    struct stat root {};
    const mode_t want = wanted_bits(true, read_only);
    if (::stat(dir.c_str(), &root) == 0 && root.st_gid == group && (root.st_mode & want) == want)
      return Status::ok();
  }
  RETURN_IF_ERROR(change(dir, group, read_only));
  std::error_code ec;
  // Never follows symlinks (the default of recursive_directory_iterator).
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    RETURN_IF_ERROR(change(it->path().string(), group, read_only));
  if (ec) return error(Code::kInternal, "walking " + dir + ": " + ec.message());
  return Status::ok();
}

}  // namespace k3c::kubelet::volumes
