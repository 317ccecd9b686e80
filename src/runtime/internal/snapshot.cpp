// Snapshot creation (see snapshot.h).
#include "runtime/internal/snapshot.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/ids.h"
#include "runtime/digest.h"
#include "runtime/files.h"
#include "runtime/image_store.h"
#include "runtime/internal/layer_unpack.h"
#include "runtime/internal/tree_at.h"

namespace k3c::runtime::internal {

namespace {

// The mount points of every container (prepare_rootfs mounts /proc, /sys and /dev; the
// kubelet's hosts, hostname and resolv.conf are bound over /etc/*), made once here where the
// image lacks them. Otherwise each container's first step creates them in its overlay upper
// dir: seven new inodes per container. On an ext4 without a journal each allocation after
// many recent deletions (every pod that went away) scans the inode table; a journaled ext4
// showed no difference (doc/benchmarks.md). Only what is wholly missing is added: a name that exists, also as a
// symlink (`/etc/resolv.conf -> ../run/...`), is left as the image made it.
Status add_mount_points(int root) {
  auto missing = [](int dir, const char* name) {
    struct stat st;
    return fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT;
  };
  for (const char* dir : {"proc", "sys", "dev", "etc"}) {
    if (missing(root, dir) && mkdirat(root, dir, 0755) != 0)
      return errno_status(std::string("mkdir /") + dir + " in the snapshot", errno);
  }
  struct stat etc;
  if (fstatat(root, "etc", &etc, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(etc.st_mode))
    return Status::ok();  // a symlinked /etc: the container's own setup follows it
  Fd etc_fd(openat(root, "etc", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (etc_fd.get() < 0) return errno_status("open /etc in the snapshot", errno);
  for (const char* file : {"hosts", "hostname", "resolv.conf"}) {
    if (!missing(etc_fd.get(), file)) continue;
    const int fd =
        openat(etc_fd.get(), file, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) return errno_status(std::string("create /etc/") + file + " in the snapshot", errno);
    close(fd);
  }
  return Status::ok();
}

}  // namespace

std::string snapshot_name(const std::string& chain) {
  return chain.empty() ? "empty" : std::string(digest_hex(chain));
}

Result<std::string> ensure_snapshot(const ImageRecord& image, const BlobStore& blobs,
                                    const std::string& snapshots_dir) {
  std::vector<std::string> diff_ids;
  for (const LayerInfo& layer : image.layers) diff_ids.push_back(layer.diff_id);
  const std::string target = snapshots_dir + "/" + snapshot_name(chain_id(diff_ids));
  struct stat info;
  if (stat(target.c_str(), &info) == 0) return target;

  const std::string temp = snapshots_dir + "/.tmp-" + new_uuid();
  if (mkdir(temp.c_str(), 0755) != 0) return errno_status("mkdir " + temp, errno);
  auto discard = [&](Status status) {
    (void)remove_tree(temp);  // best effort; a leftover .tmp- dir is never used
    return status;
  };
  Fd root(open(temp.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (root.get() < 0) return discard(errno_status("open " + temp, errno));
  for (const LayerInfo& layer : image.layers) {
    if (!blobs.has(layer.digest)) {
      return discard(error(Code::kNotFound, "layer " + layer.digest + " of image " + image.id +
                                                " is not in the blob store"));
    }
    Result<UnpackStats> applied =
        apply_layer(root.get(), blobs.path_of(layer.digest), layer.digest);
    if (!applied.is_ok()) return discard(applied.status());
  }
  if (Status s = add_mount_points(root.get()); !s.is_ok()) return discard(s);
  // The tree must be on disk before its name says it is complete.
  if (syncfs(root.get()) != 0) return discard(errno_status("syncfs " + temp, errno));
  if (rename(temp.c_str(), target.c_str()) != 0) {
    if (errno == EEXIST || errno == ENOTEMPTY) {  // made meanwhile by another process
      (void)discard(Status::ok());
      return target;
    }
    return discard(errno_status("rename " + temp, errno));
  }
  RETURN_IF_ERROR(sync_dir(snapshots_dir));
  return target;
}

}  // namespace k3c::runtime::internal
