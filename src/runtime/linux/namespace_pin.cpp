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
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

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

// Runs on a thread of its own, which it leaves in the new namespaces (namespaces belong to a
// thread, not to the process): unshare, hostname, loopback up, then the pins of the thread's
// own namespace files. Forking the multi-threaded server for this copied its page tables per
// pod (doc/benchmarks.md, pod start); a thread costs a stack.
Status make_and_pin(int flags, const std::string& hostname, const std::string& dir,
                    const bool wanted[3], PinnedNamespaces& pinned) {
  if (unshare(flags) != 0) return errno_status("creating the pod's namespaces", errno);
  if ((flags & CLONE_NEWUTS) && !hostname.empty() &&
      sethostname(hostname.data(), hostname.size()) != 0)
    return errno_status("set the pod's hostname", errno);
  if (flags & CLONE_NEWNET) {
    int sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (sock < 0) return errno_status("socket in the pod's network namespace", errno);
    struct ifreq ifr {};
    std::strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
    int err = 0;
    if (ioctl(sock, SIOCGIFFLAGS, &ifr) != 0) {
      err = errno;
    } else {
      ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
      if (ioctl(sock, SIOCSIFFLAGS, &ifr) != 0) err = errno;
    }
    close(sock);
    if (err != 0) return errno_status("bring up the pod's loopback", err);
  }
  const std::string self = "/proc/self/task/" + std::to_string(gettid()) + "/ns/";
  for (int i = 0; i < 3; ++i) {
    if (!wanted[i]) continue;
    const std::string target = dir + "/" + kKinds[i];
    RETURN_IF_ERROR(pin_file(self + kKinds[i], target));
    slot(pinned, i) = target;
  }
  return Status::ok();
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

  Status status;
  // The thread ends in the pod's namespaces: it is never reused for anything else.
  std::thread([&] { status = make_and_pin(flags, hostname, dir, wanted, pinned); }).join();
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
