#include "runtime/linux/namespace_pin.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/files.h"

namespace k3c::runtime {
namespace {

// The kinds pin_namespaces makes (the first three) and the pause's PID namespace.
constexpr const char* kKinds[] = {"net", "ipc", "uts", "pid"};

std::string& slot(PinnedNamespaces& pinned, int kind) {
  std::string* slots[] = {&pinned.net, &pinned.ipc, &pinned.uts, &pinned.pid};
  return *slots[kind];
}

// Bind-mounts the namespace file `source` onto `target` (created as an empty file).
Status pin_file(const std::string& source, const std::string& target) {
  int fd = open(target.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0444);
  if (fd < 0) return errno_status("create " + target, errno);
  close(fd);
  if (mount(source.c_str(), target.c_str(), nullptr, MS_BIND, nullptr) != 0)
    return errno_status("bind " + source + " onto " + target, errno);
  return Status::ok();
}

// Runs in the forked child, which is single-threaded: only system calls from here on.
// Reports an errno (0 = ready) on `report`, then waits for `release` to close.
[[noreturn]] void child_main(int flags, const std::string& hostname, int report, int release) {
  int err = 0;
  if (unshare(flags) != 0) err = errno;
  if (err == 0 && (flags & CLONE_NEWUTS) && !hostname.empty() &&
      sethostname(hostname.data(), hostname.size()) != 0)
    err = errno;
  if (err == 0 && (flags & CLONE_NEWNET)) {
    int sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct ifreq ifr {};
    std::strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
    if (sock < 0 || ioctl(sock, SIOCGIFFLAGS, &ifr) != 0) {
      err = errno;
    } else {
      ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
      if (ioctl(sock, SIOCSIFFLAGS, &ifr) != 0) err = errno;
    }
    if (sock >= 0) close(sock);
  }
  (void)!write(report, &err, sizeof err);
  char byte;
  (void)!read(release, &byte, 1);  // returns 0 when the parent closes its end
  _exit(0);
}

bool is_namespace_file(const std::string& path) {
  struct statfs fs {};
  return statfs(path.c_str(), &fs) == 0 && static_cast<unsigned long>(fs.f_type) == NSFS_MAGIC;
}

}  // namespace

Result<PinnedNamespaces> pin_namespaces(const std::string& dir, const NamespaceKinds& kinds,
                                        const std::string& hostname) {
  const bool wanted[] = {kinds.net, kinds.ipc, kinds.uts};
  const int flag_of[] = {CLONE_NEWNET, CLONE_NEWIPC, CLONE_NEWUTS};
  int flags = 0;
  for (int i = 0; i < 3; ++i)
    if (wanted[i]) flags |= flag_of[i];
  PinnedNamespaces pinned;
  if (flags == 0) return pinned;

  int report[2], release[2];
  if (pipe2(report, O_CLOEXEC) != 0) return errno_status("pipe", errno);
  if (pipe2(release, O_CLOEXEC) != 0) {
    int err = errno;
    close(report[0]);
    close(report[1]);
    return errno_status("pipe", err);
  }
  pid_t child = fork();
  if (child == 0) {
    close(report[0]);
    close(release[1]);
    child_main(flags, hostname, report[1], release[0]);
  }
  int fork_errno = errno;
  close(report[1]);
  close(release[0]);
  Status status;
  if (child < 0) {
    status = errno_status("fork", fork_errno);
  } else {
    int err = -1;
    if (read(report[0], &err, sizeof err) != sizeof err) {
      status = error(Code::kInternal, "namespace child died before reporting");
    } else if (err != 0) {
      status = errno_status("creating the pod's namespaces", err);
    }
    for (int i = 0; i < 3 && status.is_ok(); ++i) {
      if (!wanted[i]) continue;
      const std::string target = dir + "/" + kKinds[i];
      status = pin_file("/proc/" + std::to_string(child) + "/ns/" + kKinds[i], target);
      if (status.is_ok()) slot(pinned, i) = target;
    }
  }
  close(report[0]);
  close(release[1]);  // lets the child exit
  if (child > 0) {
    while (waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  if (!status.is_ok()) {
    (void)unpin_namespaces(dir);
    return status;
  }
  return pinned;
}

Result<std::string> pin_pid_namespace(const std::string& dir, int pid) {
  const std::string target = dir + "/pid";
  RETURN_IF_ERROR(pin_file("/proc/" + std::to_string(pid) + "/ns/pid", target));
  return target;
}

PinnedNamespaces pinned_namespaces(const std::string& dir) {
  PinnedNamespaces pinned;
  for (int i = 0; i < 4; ++i) {
    const std::string path = dir + "/" + kKinds[i];
    if (is_namespace_file(path)) slot(pinned, i) = path;
  }
  return pinned;
}

Status unpin_namespaces(const std::string& dir) {
  for (const char* kind : kKinds) {
    const std::string path = dir + "/" + kind;
    // A file can carry stacked mounts if a pin was repeated; undo all of them.
    while (is_namespace_file(path)) {
      if (umount2(path.c_str(), MNT_DETACH) != 0) return errno_status("unmount " + path, errno);
    }
    if (unlink(path.c_str()) != 0 && errno != ENOENT) return errno_status("remove " + path, errno);
  }
  return Status::ok();
}

}  // namespace k3c::runtime
