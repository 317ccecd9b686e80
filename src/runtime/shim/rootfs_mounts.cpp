// The container's root filesystem (see rootfs_mounts.h).
#include "runtime/shim/rootfs_mounts.h"

#include <fcntl.h>
#include <linux/mount.h>
#include <linux/openat2.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace k3c::runtime::shim {
namespace {

Status mount_failure(const std::string& what, int err) {
  return error(Code::kInvalid, what + ": " + std::strerror(err));
}

// An fd that closes itself.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  Fd(Fd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  Fd& operator=(Fd&& o) noexcept {
    std::swap(fd_, o.fd_);
    return *this;
  }
  int get() const { return fd_; }
  std::string proc_path() const { return "/proc/self/fd/" + std::to_string(fd_); }

 private:
  int fd_;
};

int resolve_in_root(int root, const std::string& rel) {
  open_how how{};
  how.flags = O_PATH | O_CLOEXEC;
  how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
  return static_cast<int>(syscall(SYS_openat2, root, rel.c_str(), &how, sizeof how));
}

// `path` inside the root `root`, created when missing (intermediate directories, then a
// directory or an empty file), as an O_PATH fd. A dangling symlink on the way (an image's
// `/etc/resolv.conf -> ../run/resolv.conf`) is followed: its target is created, inside the
// root, as runc does.
Result<Fd> open_in_root(int root, std::string path, bool dir, int depth = 0) {
  while (!path.empty() && path.front() == '/') path.erase(0, 1);
  while (!path.empty() && path.back() == '/') path.pop_back();
  if (path.empty()) return Fd(resolve_in_root(root, "."));
  int fd = resolve_in_root(root, path);
  if (fd >= 0) return Fd(fd);
  if (errno != ENOENT) return mount_failure("resolve /" + path, errno);
  if (depth > 40) return mount_failure("resolve /" + path, ELOOP);
  const size_t slash = path.rfind('/');
  const std::string parent = slash == std::string::npos ? "" : path.substr(0, slash);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  ASSIGN_OR_RETURN(Fd parent_fd, open_in_root(root, parent, true, depth + 1));
  // The parent is an O_PATH fd: create through its /proc path, which the kernel resolves to
  // the directory itself (the parent may be anywhere, but it was resolved inside the root).
  const std::string target = parent_fd.proc_path() + "/" + base;
  char link[4096];
  const ssize_t link_len = readlink(target.c_str(), link, sizeof link - 1);
  if (link_len > 0) {
    const std::string to(link, static_cast<size_t>(link_len));
    const std::string next = to.front() == '/' ? to : parent + "/" + to;
    ASSIGN_OR_RETURN(Fd created, open_in_root(root, next, dir, depth + 1));
  } else if (dir) {
    if (mkdir(target.c_str(), 0755) != 0 && errno != EEXIST)
      return mount_failure("mkdir /" + path, errno);
  } else {
    const int created = open(target.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (created < 0 && errno != EEXIST) return mount_failure("create /" + path, errno);
    if (created >= 0) close(created);
  }
  fd = resolve_in_root(root, path);
  if (fd < 0) return mount_failure("resolve /" + path, errno);
  return Fd(fd);
}

Status mount_at(int root, const std::string& path, const char* source, const char* type,
                unsigned long flags, const char* data) {
  ASSIGN_OR_RETURN(Fd target, open_in_root(root, path, true));
  if (mount(source, target.proc_path().c_str(), type, flags, data) != 0) {
    return mount_failure(std::string("mount ") + type + " on " + path, errno);
  }
  return Status::ok();
}

// Makes the mount at `path` read-only (and every mount below it when `recursive`), keeping
// its other flags. mount_setattr (Linux 5.12) does both; older kernels get a plain remount.
Status make_read_only(const std::string& path, bool recursive) {
  mount_attr attr{};
  attr.attr_set = MOUNT_ATTR_RDONLY;
  const unsigned flags = recursive ? AT_RECURSIVE : 0;
  if (syscall(SYS_mount_setattr, AT_FDCWD, path.c_str(), flags, &attr, sizeof attr) == 0) {
    return Status::ok();
  }
  if (errno != ENOSYS) return mount_failure("make " + path + " read-only", errno);
  struct statvfs vfs {};
  if (statvfs(path.c_str(), &vfs) != 0) return mount_failure("statvfs " + path, errno);
  unsigned long keep = 0;
  if (vfs.f_flag & ST_NOSUID) keep |= MS_NOSUID;
  if (vfs.f_flag & ST_NODEV) keep |= MS_NODEV;
  if (vfs.f_flag & ST_NOEXEC) keep |= MS_NOEXEC;
  if (mount(nullptr, path.c_str(), nullptr, MS_BIND | MS_REMOUNT | MS_RDONLY | keep, nullptr)) {
    return mount_failure("make " + path + " read-only", errno);
  }
  return Status::ok();
}

struct Device {
  const char* name;
  unsigned major, minor;
};
constexpr Device kDevices[] = {{"null", 1, 3},   {"zero", 1, 5},    {"full", 1, 7},
                               {"random", 1, 8}, {"urandom", 1, 9}, {"tty", 5, 0}};

// The device node /dev/<name> in the container's /dev (`d`, its /proc path): `type_mode`
// (S_IFCHR/S_IFBLK and permission bits), `rdev`, owned by uid:gid. Without CAP_MKNOD (a
// user namespace) the host's node is bound instead.
Status make_device(const std::string& d, const std::string& name, mode_t type_mode, dev_t rdev,
                   uid_t uid, gid_t gid) {
  const std::string node = d + "/" + name;
  if (mknod(node.c_str(), type_mode, rdev) == 0) {
    // mknod applies the umask; chmod sets the bits as asked.
    if (chmod(node.c_str(), type_mode & 07777) != 0)
      return mount_failure("chmod /dev/" + name, errno);
    if (chown(node.c_str(), uid, gid) != 0) return mount_failure("chown /dev/" + name, errno);
    return Status::ok();
  }
  if (errno == EEXIST) return Status::ok();  // one of the standard nodes
  const int file = open(node.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, type_mode & 07777);
  if (file < 0) return mount_failure("create /dev/" + name, errno);
  close(file);
  const std::string host = "/dev/" + name;
  if (mount(host.c_str(), node.c_str(), nullptr, MS_BIND, nullptr) != 0) {
    return mount_failure("bind " + host, errno);
  }
  return Status::ok();
}

// A privileged container gets every character and block device of the host's /dev, at the
// same path with the same mode and owner, as containerd's WithDevices(HostDevices()):
// symlinks, /dev/console, /dev/ptmx and the pts, shm, fd and mqueue directories are left out
// (the container has its own).
Status add_host_devices(const std::string& d) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::recursive_directory_iterator it("/dev", ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const fs::path rel = it->path().lexically_relative("/dev");
    struct stat st {};
    if (lstat(it->path().c_str(), &st) != 0) continue;  // gone meanwhile
    if (S_ISDIR(st.st_mode)) {
      const std::string name = it->path().filename();
      if (name == "pts" || name == "shm" || name == "fd" || name == "mqueue" || name == ".lxc" ||
          name == ".lxd-mounts" || name == ".udev") {
        it.disable_recursion_pending();
        continue;
      }
      if (mkdir((d + "/" + rel.string()).c_str(), st.st_mode & 07777) != 0 && errno != EEXIST)
        return mount_failure("mkdir /dev/" + rel.string(), errno);
      continue;
    }
    if (!S_ISCHR(st.st_mode) && !S_ISBLK(st.st_mode)) continue;
    if (rel == "console" || rel == "ptmx") continue;  // ptmx: the container's pts/ptmx link
    RETURN_IF_ERROR(make_device(d, rel.string(), st.st_mode, st.st_rdev, st.st_uid, st.st_gid));
  }
  if (ec) return mount_failure("list the host's /dev", ec.value());
  return Status::ok();
}

Status populate_dev(int root, bool privileged) {
  RETURN_IF_ERROR(
      mount_at(root, "/dev", "tmpfs", "tmpfs", MS_NOSUID | MS_STRICTATIME, "mode=755,size=65536k"));
  ASSIGN_OR_RETURN(Fd dev, open_in_root(root, "/dev", true));  // the new tmpfs
  const std::string d = dev.proc_path();
  for (const Device& device : kDevices) {
    RETURN_IF_ERROR(
        make_device(d, device.name, S_IFCHR | 0666, makedev(device.major, device.minor), 0, 0));
  }
  if (privileged) RETURN_IF_ERROR(add_host_devices(d));
  for (const char* dir : {"pts", "shm", "mqueue"}) {
    if (mkdir((d + "/" + dir).c_str(), 0755) != 0)
      return mount_failure(std::string("mkdir /dev/") + dir, errno);
  }
  if (mount("devpts", (d + "/pts").c_str(), "devpts", MS_NOSUID | MS_NOEXEC,
            "newinstance,ptmxmode=0666,mode=0620,gid=5") != 0) {
    return mount_failure("mount devpts on /dev/pts", errno);
  }
  if (mount("shm", (d + "/shm").c_str(), "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
            "mode=1777,size=65536k") != 0) {
    return mount_failure("mount tmpfs on /dev/shm", errno);
  }
  if (mount("mqueue", (d + "/mqueue").c_str(), "mqueue", MS_NOSUID | MS_NODEV | MS_NOEXEC,
            nullptr) != 0) {
    return mount_failure("mount mqueue on /dev/mqueue", errno);
  }
  const std::pair<const char*, const char*> links[] = {
      {"ptmx", "pts/ptmx"},          {"fd", "/proc/self/fd"},       {"stdin", "/proc/self/fd/0"},
      {"stdout", "/proc/self/fd/1"}, {"stderr", "/proc/self/fd/2"}, {"core", "/proc/kcore"}};
  for (const auto& [name, target] : links) {
    if (symlink(target, (d + "/" + name).c_str()) != 0) {
      return mount_failure(std::string("symlink /dev/") + name, errno);
    }
  }
  return Status::ok();
}

Status bind_mount(int root, const Mount& m) {
  const std::string what = "mount \"" + m.host_path + "\" to \"" + m.container_path + "\"";
  if (m.container_path.empty() || m.container_path.front() != '/') {
    return error(Code::kInvalid, what + ": the container path must be absolute");
  }
  struct stat st {};
  if (stat(m.host_path.c_str(), &st) != 0) return mount_failure(what, errno);
  ASSIGN_OR_RETURN(Fd target, open_in_root(root, m.container_path, S_ISDIR(st.st_mode)));
  const unsigned long flags = MS_BIND | (m.recursive ? MS_REC : 0);
  if (mount(m.host_path.c_str(), target.proc_path().c_str(), nullptr, flags, nullptr) != 0) {
    return mount_failure(what, errno);
  }
  if (!m.read_only) return Status::ok();
  ASSIGN_OR_RETURN(Fd mounted, open_in_root(root, m.container_path, S_ISDIR(st.st_mode)));
  return make_read_only(mounted.proc_path(), m.recursive);
}

std::string rootfs_of(const LaunchSpec& spec) { return spec.state_dir + "/rootfs"; }

constexpr char kCgroupMountPoint[] = "/sys/fs/cgroup";

// Paths of /proc and /sys that a container must not see or change (containerd's defaults).
constexpr const char* kMaskedPaths[] = {"/proc/acpi",
                                        "/proc/asound",
                                        "/proc/kcore",
                                        "/proc/keys",
                                        "/proc/latency_stats",
                                        "/proc/timer_list",
                                        "/proc/timer_stats",
                                        "/proc/sched_debug",
                                        "/proc/scsi",
                                        "/sys/firmware",
                                        "/sys/devices/virtual/powercap"};
constexpr const char* kReadOnlyPaths[] = {"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys",
                                          "/proc/sysrq-trigger"};

}  // namespace

Result<std::string> overlay_options(const LaunchSpec& spec) {
  if (spec.lower_dirs.empty()) return error(Code::kInvalid, "no image layers to mount");
  std::string lower;
  for (const std::string& dir : spec.lower_dirs) {
    if (dir.find_first_of(",:") != std::string::npos) {
      return error(Code::kInvalid, "overlay lower dir " + dir + " contains ',' or ':'");
    }
    if (!lower.empty()) lower += ':';
    lower += dir;
  }
  if (spec.state_dir.find_first_of(",:") != std::string::npos) {
    return error(Code::kInvalid, "state dir " + spec.state_dir + " contains ',' or ':'");
  }
  return "lowerdir=" + lower + ",upperdir=" + spec.state_dir + "/upper,workdir=" + spec.state_dir +
         "/work";
}

Status prepare_rootfs(const LaunchSpec& spec) {
  // Nothing mounted from here on may propagate back to the host.
  if (mount("", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    return mount_failure("make / rprivate", errno);
  }
  ASSIGN_OR_RETURN(std::string options, overlay_options(spec));
  const std::string rootfs = rootfs_of(spec);
  if (mount("overlay", rootfs.c_str(), "overlay", 0, options.c_str()) != 0) {
    return mount_failure("mount overlay root on " + rootfs, errno);
  }
  const int raw_root = open(rootfs.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (raw_root < 0) return mount_failure("open " + rootfs, errno);
  Fd root(raw_root);
  RETURN_IF_ERROR(
      mount_at(root.get(), "/proc", "proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr));
  const unsigned long sys_flags =
      MS_NOSUID | MS_NODEV | MS_NOEXEC | (spec.privileged ? 0 : MS_RDONLY);
  RETURN_IF_ERROR(mount_at(root.get(), "/sys", "sysfs", "sysfs", sys_flags, nullptr));
  RETURN_IF_ERROR(populate_dev(root.get(), spec.privileged));
  for (const Mount& m : spec.mounts) RETURN_IF_ERROR(bind_mount(root.get(), m));
  return Status::ok();
}

Status mount_cgroup_view(const LaunchSpec& spec, const CgroupView& view) {
  if (view.kind == CgroupView::Kind::kNone) return Status::ok();
  const std::string rootfs = rootfs_of(spec);
  Fd root(open(rootfs.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (root.get() < 0) return mount_failure("open " + rootfs, errno);
  const unsigned long flags = MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RELATIME;
  if (view.kind == CgroupView::Kind::kUnified) {
    // In a new cgroup namespace, the mount's root is the container's own cgroup.
    return mount_at(root.get(), kCgroupMountPoint, "cgroup", "cgroup2",
                    flags | (view.read_only ? MS_RDONLY : 0), nullptr);
  }
  RETURN_IF_ERROR(mount_at(root.get(), kCgroupMountPoint, "tmpfs", "tmpfs", flags, "mode=755"));
  ASSIGN_OR_RETURN(Fd dir, open_in_root(root.get(), kCgroupMountPoint, true));  // the tmpfs
  const std::string d = dir.proc_path();
  for (const CgroupBind& bind : view.binds) {
    const std::string target = d + "/" + bind.name;
    if (mkdir(target.c_str(), 0755) != 0) return mount_failure("mkdir " + target, errno);
    if (mount(bind.host_dir.c_str(), target.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0)
      return mount_failure("bind " + bind.host_dir + " on /sys/fs/cgroup/" + bind.name, errno);
    if (view.read_only) RETURN_IF_ERROR(make_read_only(target, true));
  }
  for (const auto& [name, to] : view.links) {
    if (symlink(to.c_str(), (d + "/" + name).c_str()) != 0)
      return mount_failure("symlink /sys/fs/cgroup/" + name, errno);
  }
  return view.read_only ? make_read_only(d, false) : Status::ok();
}

Status enter_rootfs(const LaunchSpec& spec) {
  const std::string rootfs = rootfs_of(spec);
  if (chdir(rootfs.c_str()) != 0) return mount_failure("chdir " + rootfs, errno);
  // pivot_root(".", "."): the old root ends up mounted on top of the new one, and is then
  // detached; no directory for it is needed inside the image.
  if (syscall(SYS_pivot_root, ".", ".") != 0) return mount_failure("pivot_root", errno);
  if (umount2(".", MNT_DETACH) != 0) return mount_failure("detach the old root", errno);
  if (chdir("/") != 0) return mount_failure("chdir /", errno);
  return Status::ok();
}

Status finish_rootfs(const LaunchSpec& spec) {
  if (!spec.privileged) {
    for (const char* path : kMaskedPaths) {
      struct stat st {};
      if (stat(path, &st) != 0) continue;  // not on this kernel
      const int rc = S_ISDIR(st.st_mode) ? mount("tmpfs", path, "tmpfs", MS_RDONLY, nullptr)
                                         : mount("/dev/null", path, nullptr, MS_BIND, nullptr);
      if (rc != 0) return mount_failure(std::string("mask ") + path, errno);
    }
    for (const char* path : kReadOnlyPaths) {
      if (access(path, F_OK) != 0) continue;
      if (mount(path, path, nullptr, MS_BIND | MS_REC, nullptr) != 0) {
        return mount_failure(std::string("bind ") + path, errno);
      }
      RETURN_IF_ERROR(make_read_only(path, true));
    }
  }
  // The working directory is created when missing, as runc does, while / is still writable.
  {
    const int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (root < 0) return mount_failure("open /", errno);
    Fd root_fd(root);
    auto cwd = open_in_root(root, spec.process.cwd.empty() ? "/" : spec.process.cwd, true);
    if (!cwd.is_ok()) {
      return error(Code::kInvalid, "mkdir cwd (\"" + spec.process.cwd +
                                       "\") set in the spec: " + cwd.status().message());
    }
  }
  if (spec.read_only_rootfs) RETURN_IF_ERROR(make_read_only("/", false));
  return Status::ok();
}

}  // namespace k3c::runtime::shim
