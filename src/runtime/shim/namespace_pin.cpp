// Pinned namespaces for pod sandboxes (see pin_namespaces in container_process.h): the
// client side, and `k3c shim pin <net> <ipc> <uts> <hostname>` ("-" for none), which
// unshares, sets the namespaces up, bind-mounts /proc/self/ns/<x> onto each file and exits.
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "runtime/files.h"
#include "runtime/shim/container_process.h"
#include "runtime/shim/shim_modes.h"
#include "runtime/shim/spawn_shim.h"

namespace k3c::runtime {
namespace {

std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }

Status loopback_up() {
  const int sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (sock < 0) return errno_status("socket", errno);
  ifreq req{};
  std::strncpy(req.ifr_name, "lo", IFNAMSIZ - 1);
  Status status;
  if (ioctl(sock, SIOCGIFFLAGS, &req) != 0) {
    status = errno_status("read the flags of lo", errno);
  } else {
    req.ifr_flags |= IFF_UP;
    if (ioctl(sock, SIOCSIFFLAGS, &req) != 0) status = errno_status("bring lo up", errno);
  }
  close(sock);
  return status;
}

Status bind_namespace(const char* kind, const std::string& path) {
  if (path == "-") return Status::ok();
  const int fd = open(path.c_str(), O_CREAT | O_EXCL | O_RDONLY | O_CLOEXEC, 0444);
  if (fd < 0) return errno_status("create " + path, errno);
  close(fd);
  const std::string source = std::string("/proc/self/ns/") + kind;
  if (mount(source.c_str(), path.c_str(), nullptr, MS_BIND, nullptr) != 0) {
    const Status status = errno_status("bind " + source + " on " + path, errno);
    unlink(path.c_str());
    return status;
  }
  return Status::ok();
}

Status pin(const std::string& net, const std::string& ipc, const std::string& uts,
           const std::string& hostname) {
  int flags = 0;
  if (net != "-") flags |= CLONE_NEWNET;
  if (ipc != "-") flags |= CLONE_NEWIPC;
  if (uts != "-") flags |= CLONE_NEWUTS;
  if (unshare(flags) != 0) return errno_status("unshare", errno);
  if (uts != "-" && hostname != "-" && sethostname(hostname.data(), hostname.size()) != 0) {
    return errno_status("sethostname " + hostname, errno);
  }
  if (net != "-") RETURN_IF_ERROR(loopback_up());
  const std::pair<const char*, const std::string*> binds[] = {
      {"net", &net}, {"ipc", &ipc}, {"uts", &uts}};
  for (size_t i = 0; i < 3; ++i) {
    const Status bound = bind_namespace(binds[i].first, *binds[i].second);
    if (!bound.is_ok()) {
      for (size_t j = 0; j < i; ++j) (void)unpin_namespace(*binds[j].second);
      return bound;
    }
  }
  return Status::ok();
}

}  // namespace

namespace shim {

int shim_pin(int argc, char** argv) {
  if (argc != 7) return 2;
  const Status status = pin(argv[3], argv[4], argv[5], argv[6]);
  if (status.is_ok()) return 0;
  std::fprintf(stderr, "%s", status.message().c_str());
  return 1;
}

}  // namespace shim

Status pin_namespaces(const PinnedNamespaces& pins) {
  if (pins.hostname.size() > 64) {
    return error(Code::kInvalid, "hostname \"" + pins.hostname + "\" is longer than 64 bytes");
  }
  int err[2];
  if (pipe2(err, O_CLOEXEC) != 0) return errno_status("pipe", errno);
  auto pid = shim::spawn_shim(pins.shim_binary,
                              {"k3c", "shim", "pin", or_dash(pins.net), or_dash(pins.ipc),
                               or_dash(pins.uts), or_dash(pins.hostname)},
                              {{err[1], 2}}, false);
  close(err[1]);
  std::string message;
  if (pid.is_ok()) {
    char buf[1024];
    ssize_t n;
    while ((n = read(err[0], buf, sizeof buf)) > 0) message.append(buf, static_cast<size_t>(n));
  }
  close(err[0]);
  if (!pid.is_ok()) return pid.status();
  const int code = shim::wait_exit_code(*pid);
  if (code == 0) return Status::ok();
  return error(Code::kInternal, "pin the sandbox namespaces: " +
                                    (message.empty() ? "exit " + std::to_string(code) : message));
}

Status unpin_namespace(const std::string& path) {
  if (path.empty()) return Status::ok();
  if (umount2(path.c_str(), MNT_DETACH) != 0 && errno != EINVAL && errno != ENOENT) {
    return errno_status("unmount " + path, errno);
  }
  if (unlink(path.c_str()) != 0 && errno != ENOENT) return errno_status("remove " + path, errno);
  return Status::ok();
}

}  // namespace k3c::runtime
