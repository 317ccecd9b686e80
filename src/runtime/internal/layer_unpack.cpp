// Layer application (see layer_unpack.h).
#include "runtime/internal/layer_unpack.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <set>
#include <vector>

#include "runtime/digest.h"
#include "runtime/files.h"
#include "runtime/internal/archive.h"
#include "runtime/internal/tree_at.h"

namespace k3c::runtime::internal {
namespace {

constexpr std::string_view kWhiteoutPrefix = ".wh.";
constexpr std::string_view kOpaqueMarker = ".wh..wh..opq";

// Feeds libarchive from the layer file while hashing every byte, so the blob is verified in
// the same pass that unpacks it.
struct HashingSource {
  int fd = -1;
  Sha256 hasher;
  char buffer[65536];
};

la_ssize_t read_hashing(archive*, void* data, const void** out) {
  auto* source = static_cast<HashingSource*>(data);
  for (;;) {
    const ssize_t n = read(source->fd, source->buffer, sizeof source->buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n > 0) source->hasher.update(source->buffer, static_cast<size_t>(n));
    *out = source->buffer;
    return n;
  }
}

struct DirTimes {
  std::string path;
  timespec times[2];
};

// One layer being applied: the tree, what this layer wrote (an opaque marker keeps those),
// and directory mtimes to set last (writing into a directory changes its mtime).
class LayerApplier {
 public:
  LayerApplier(int root_fd, archive* a, std::string layer)
      : root_fd_(root_fd), a_(a), layer_(std::move(layer)), is_root_(geteuid() == 0) {}

  Status apply_entry(archive_entry* entry);
  Status finish();
  UnpackStats stats() const { return stats_; }

 private:
  Status whiteout(const Fd& parent, const std::string& parent_path, const std::string& name);
  Status make_opaque(const std::string& dir_path);
  Status clear_unwritten(int dir_fd, const std::string& dir_path);
  Status make_node(archive_entry* entry, const Fd& parent, const std::string& path,
                   const std::string& name);
  Status write_file(archive_entry* entry, int fd, const std::string& path);
  Status link_to(archive_entry* entry, const Fd& parent, const std::string& name);
  void set_owner_and_mode(archive_entry* entry, const Fd& parent, const std::string& name,
                          bool symlink);
  void set_xattrs(archive_entry* entry, int fd);
  static void entry_times(archive_entry* entry, timespec times[2]);
  Status fail(const std::string& path, std::string_view what) const {
    return error(Code::kInvalid, "layer " + layer_ + ": " + path + ": " + std::string(what));
  }

  int root_fd_;
  archive* a_;
  std::string layer_;
  bool is_root_;
  std::set<std::string> written_;
  std::vector<DirTimes> dir_times_;
  UnpackStats stats_;
};

Status LayerApplier::apply_entry(archive_entry* entry) {
  ASSIGN_OR_RETURN(std::string path, clean_entry_path(archive_entry_pathname(entry), layer_));
  if (path.empty()) return Status::ok();  // "./": the root keeps its own metadata
  ++stats_.entries;
  const size_t slash = path.rfind('/');
  const std::string parent_path = slash == std::string::npos ? "" : path.substr(0, slash);
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (name == kOpaqueMarker) return make_opaque(parent_path);
  if (name.starts_with(kWhiteoutPrefix)) {
    // Other ".wh..wh." names are aufs bookkeeping (hard link dirs), not content.
    if (name.starts_with(".wh..wh.")) return Status::ok();
    Result<Fd> parent = open_in_root(root_fd_, parent_path, O_PATH | O_DIRECTORY);
    if (!parent.is_ok() && parent.status().code() == Code::kNotFound) return Status::ok();
    if (!parent.is_ok()) return parent.status();
    return whiteout(*parent, parent_path, name.substr(kWhiteoutPrefix.size()));
  }
  ASSIGN_OR_RETURN(Fd parent, make_dirs_in_root(root_fd_, parent_path));
  written_.insert(path);
  return make_node(entry, parent, path, name);
}

Status LayerApplier::whiteout(const Fd& parent, const std::string& parent_path,
                              const std::string& name) {
  if (name.empty() || name == "." || name == "..") return fail(parent_path, "bad whiteout name");
  return remove_at(parent.get(), name);
}

Status LayerApplier::make_opaque(const std::string& dir_path) {
  ASSIGN_OR_RETURN(Fd dir, make_dirs_in_root(root_fd_, dir_path));
  ASSIGN_OR_RETURN(Fd readable, open_in_root(root_fd_, dir_path, O_RDONLY | O_DIRECTORY));
  return clear_unwritten(readable.release(), dir_path);
}

// Removes everything under the directory (fd, taken) that this layer did not write itself.
Status LayerApplier::clear_unwritten(int dir_fd, const std::string& dir_path) {
  DIR* dir = fdopendir(dir_fd);
  if (dir == nullptr) {
    close(dir_fd);
    return errno_status("open " + dir_path, errno);
  }
  std::vector<std::string> names;
  while (dirent* e = readdir(dir)) {
    const std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  Status status;
  for (const std::string& n : names) {
    const std::string child = dir_path.empty() ? n : dir_path + "/" + n;
    if (!written_.contains(child)) {
      status = remove_at(dirfd(dir), n);
    } else {
      struct stat info;
      if (fstatat(dirfd(dir), n.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0 &&
          S_ISDIR(info.st_mode)) {
        const int sub =
            openat(dirfd(dir), n.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        status = sub < 0 ? errno_status("open " + child, errno) : clear_unwritten(sub, child);
      }
    }
    if (!status.is_ok()) break;
  }
  closedir(dir);
  return status;
}

Status LayerApplier::make_node(archive_entry* entry, const Fd& parent, const std::string& path,
                               const std::string& name) {
  if (archive_entry_hardlink(entry) != nullptr) return link_to(entry, parent, name);
  const mode_t type = archive_entry_filetype(entry);
  struct stat existing;
  const bool exists = fstatat(parent.get(), name.c_str(), &existing, AT_SYMLINK_NOFOLLOW) == 0;
  // A directory entry over an existing directory keeps its contents (only metadata changes);
  // anything else replaces what was there.
  if (exists && !(type == AE_IFDIR && S_ISDIR(existing.st_mode))) {
    RETURN_IF_ERROR(remove_at(parent.get(), name));
  }
  timespec times[2];
  entry_times(entry, times);
  if (type == AE_IFDIR) {
    if (mkdirat(parent.get(), name.c_str(), 0700) != 0 && errno != EEXIST) {
      return errno_status("mkdir " + path, errno);
    }
    Fd dir(openat(parent.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (dir.get() < 0) return errno_status("open " + path, errno);
    set_owner_and_mode(entry, parent, name, false);
    set_xattrs(entry, dir.get());
    dir_times_.push_back({path, {times[0], times[1]}});
    return Status::ok();
  }
  if (type == AE_IFREG) {
    Fd file(openat(parent.get(), name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                   0600));
    if (file.get() < 0) return errno_status("create " + path, errno);
    RETURN_IF_ERROR(write_file(entry, file.get(), path));
    set_owner_and_mode(entry, parent, name, false);
    set_xattrs(entry, file.get());
    futimens(file.get(), times);
    return Status::ok();
  }
  if (type == AE_IFLNK) {
    // The target is stored as written; it is only ever resolved inside the container's root.
    if (symlinkat(archive_entry_symlink(entry), parent.get(), name.c_str()) != 0) {
      return errno_status("symlink " + path, errno);
    }
    set_owner_and_mode(entry, parent, name, true);
    utimensat(parent.get(), name.c_str(), times, AT_SYMLINK_NOFOLLOW);
    return Status::ok();
  }
  if (type == AE_IFIFO || type == AE_IFCHR || type == AE_IFBLK) {
    const dev_t dev = makedev(archive_entry_rdevmajor(entry), archive_entry_rdevminor(entry));
    if (type != AE_IFIFO && !is_root_) {
      ++stats_.skipped_devices;  // mknod of devices needs CAP_MKNOD
      return Status::ok();
    }
    if (mknodat(parent.get(), name.c_str(), type | 0600, dev) != 0) {
      if (errno == EPERM) {
        ++stats_.skipped_devices;
        return Status::ok();
      }
      return errno_status("mknod " + path, errno);
    }
    set_owner_and_mode(entry, parent, name, false);
    utimensat(parent.get(), name.c_str(), times, AT_SYMLINK_NOFOLLOW);
    return Status::ok();
  }
  return fail(path, "unsupported entry type");
}

Status LayerApplier::write_file(archive_entry* entry, int fd, const std::string& path) {
  const void* block = nullptr;
  size_t size = 0;
  la_int64_t offset = 0;
  for (;;) {
    const int rc = archive_read_data_block(a_, &block, &size, &offset);
    if (rc == ARCHIVE_EOF) break;
    if (rc != ARCHIVE_OK) return archive_status(a_, "layer " + layer_ + ": " + path);
    const char* bytes = static_cast<const char*>(block);
    while (size > 0) {  // pwrite at the block's offset keeps sparse files sparse
      const ssize_t n = pwrite(fd, bytes, size, offset);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return errno_status("write " + path, errno);
      bytes += n;
      offset += n;
      size -= static_cast<size_t>(n);
    }
  }
  if (ftruncate(fd, archive_entry_size(entry)) != 0) return errno_status("write " + path, errno);
  return Status::ok();
}

Status LayerApplier::link_to(archive_entry* entry, const Fd& parent, const std::string& name) {
  // The target is another path of this tree (tar's hard links name archive paths), resolved
  // inside the root like every path; ".." that climbs out is refused.
  ASSIGN_OR_RETURN(std::string target,
                   clean_entry_path(archive_entry_hardlink(entry), layer_ + ": hard link"));
  if (target.empty()) return fail(name, "hard link to the root");
  const size_t slash = target.rfind('/');
  const std::string target_dir = slash == std::string::npos ? "" : target.substr(0, slash);
  const std::string target_name = slash == std::string::npos ? target : target.substr(slash + 1);
  Result<Fd> dir = open_in_root(root_fd_, target_dir, O_PATH | O_DIRECTORY);
  if (!dir.is_ok()) return fail(name, "hard link to missing " + target);
  struct stat info;
  if (fstatat(dir->get(), target_name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) {
    return fail(name, "hard link to missing " + target);
  }
  if (S_ISDIR(info.st_mode)) return fail(name, "hard link to a directory " + target);
  RETURN_IF_ERROR(remove_at(parent.get(), name));
  // Flags 0: never follow a symlink at the target; the link is to the entry itself.
  if (linkat(dir->get(), target_name.c_str(), parent.get(), name.c_str(), 0) != 0) {
    return errno_status("link " + name + " to " + target, errno);
  }
  return Status::ok();
}

void LayerApplier::set_owner_and_mode(archive_entry* entry, const Fd& parent,
                                      const std::string& name, bool symlink) {
  // Ownership only as root (anyone else would get EPERM); chown before chmod because chown
  // clears the set-id bits. Failures here leave defaults, which is what an unprivileged tar
  // does; a container runtime runs as root.
  if (is_root_) {
    // Deliberately ignored: see above.
    (void)fchownat(parent.get(), name.c_str(), static_cast<uid_t>(archive_entry_uid(entry)),
                   static_cast<gid_t>(archive_entry_gid(entry)), AT_SYMLINK_NOFOLLOW);
  }
  if (!symlink) {
    (void)fchmodat(parent.get(), name.c_str(), archive_entry_perm(entry) & 07777, 0);
  }
}

void LayerApplier::set_xattrs(archive_entry* entry, int fd) {
  const char* key = nullptr;
  const void* value = nullptr;
  size_t size = 0;
  archive_entry_xattr_reset(entry);
  while (archive_entry_xattr_next(entry, &key, &value, &size) == ARCHIVE_OK) {
    // An image must not smuggle overlayfs' own markers into a lower dir.
    if (std::string_view(key).starts_with("trusted.overlay.")) {
      ++stats_.skipped_xattrs;
      continue;
    }
    if (fsetxattr(fd, key, value, size, 0) != 0) ++stats_.skipped_xattrs;
  }
}

void LayerApplier::entry_times(archive_entry* entry, timespec times[2]) {
  times[0] = {0, UTIME_OMIT};
  times[1] = {0, UTIME_OMIT};
  if (archive_entry_mtime_is_set(entry)) {
    times[1] = {archive_entry_mtime(entry), archive_entry_mtime_nsec(entry)};
    times[0] = times[1];
  }
  if (archive_entry_atime_is_set(entry)) {
    times[0] = {archive_entry_atime(entry), archive_entry_atime_nsec(entry)};
  }
}

Status LayerApplier::finish() {
  // Deepest last-created first, so setting a child's time does not disturb its parent's.
  for (auto it = dir_times_.rbegin(); it != dir_times_.rend(); ++it) {
    Result<Fd> dir = open_in_root(root_fd_, it->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
    if (dir.is_ok()) futimens(dir->get(), it->times);
  }
  return Status::ok();
}

Status apply_entries(archive* a, LayerApplier& applier, const std::string& layer) {
  archive_entry* entry = nullptr;
  for (;;) {
    const int rc = archive_read_next_header(a, &entry);
    if (rc == ARCHIVE_EOF) break;
    if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN) return archive_status(a, "layer " + layer);
    RETURN_IF_ERROR(applier.apply_entry(entry));
  }
  return applier.finish();
}

}  // namespace

Result<UnpackStats> apply_layer(int root_fd, const std::string& layer_path,
                                std::string_view expected_digest) {
  auto source = std::make_unique<HashingSource>();
  Fd file(open(layer_path.c_str(), O_RDONLY | O_CLOEXEC));
  if (file.get() < 0) return errno_status("open layer " + layer_path, errno);
  source->fd = file.get();
  ArchivePtr a(archive_read_new());
  archive_read_support_filter_none(a.get());
  archive_read_support_filter_gzip(a.get());
  archive_read_support_filter_zstd(a.get());
  archive_read_support_format_tar(a.get());
  archive_read_support_format_gnutar(a.get());
  archive_read_support_format_empty(a.get());
  const std::string layer(expected_digest);
  if (archive_read_open(a.get(), source.get(), nullptr, read_hashing, nullptr) != ARCHIVE_OK) {
    return archive_status(a.get(), "layer " + layer);
  }
  LayerApplier applier(root_fd, a.get(), layer);
  Status status = apply_entries(a.get(), applier, layer);
  // libarchive may stop before the end of the file (tar padding, or an error): hash the rest
  // too, so that damage is reported as such rather than as whatever it broke.
  const void* ignored = nullptr;
  while (read_hashing(a.get(), source.get(), &ignored) > 0) {
  }
  if (std::string actual = source->hasher.finish(); actual != expected_digest) {
    return error(Code::kCorrupt, "layer " + layer + " is damaged on disk (content is " + actual +
                                     "); remove the image and import it again");
  }
  RETURN_IF_ERROR(status);
  return applier.stats();
}

}  // namespace k3c::runtime::internal
