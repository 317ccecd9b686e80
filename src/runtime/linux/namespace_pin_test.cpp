// Pinned sandbox namespaces on the real kernel (root only), inside a child that has its own
// mount namespace, so the bind mounts never reach the host's.
#include "runtime/linux/namespace_pin.h"

#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>

#include "child_scenario.h"
#include "temp_dir.h"

namespace k3c::runtime {
namespace {

// In yet another child: joins the pinned namespaces and reports what it sees.
int check_inside(const PinnedNamespaces& pinned) {
  pid_t child = fork();
  if (child == 0) {
    for (const std::string& path : {pinned.net, pinned.uts}) {
      int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0 || setns(fd, 0) != 0) _exit(11);
      close(fd);
    }
    char name[64] = {};
    if (gethostname(name, sizeof name - 1) != 0 || std::strcmp(name, "pod-a") != 0) _exit(12);
    int sock = socket(AF_INET, SOCK_DGRAM, 0);
    struct ifreq ifr {};
    std::strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
    if (sock < 0 || ioctl(sock, SIOCGIFFLAGS, &ifr) != 0 || !(ifr.ifr_flags & IFF_UP)) _exit(13);
    // Only loopback: a second interface would mean the host's namespace.
    if (if_nametoindex("eth0") != 0) _exit(14);
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 210;
}

std::string own_namespace(const char* kind) {
  char target[256] = {};
  const std::string link = std::string("/proc/thread-self/ns/") + kind;
  return readlink(link.c_str(), target, sizeof target - 1) > 0 ? target : "";
}

int pin_and_check(const std::string& dir) {
  const std::string net = own_namespace("net"), uts = own_namespace("uts");
  auto pinned = pin_namespaces(dir, {}, "pod-a");
  if (!pinned.is_ok()) return 1;
  // The caller stays where it was: only the pinning thread entered the pod's namespaces.
  if (net.empty() || own_namespace("net") != net || own_namespace("uts") != uts) return 8;
  PinnedNamespaces seen = pinned_namespaces(dir);
  if (seen.net != dir + "/net" || seen.ipc != dir + "/ipc" || seen.uts != dir + "/uts") return 2;
  if (int failed = check_inside(*pinned)) return failed;
  if (!unpin_namespaces(dir).is_ok()) return 3;
  if (access((dir + "/net").c_str(), F_OK) == 0) return 4;
  if (!pinned_namespaces(dir).net.empty()) return 5;
  // Only IPC, for a hostNetwork pod: no net or uts file at all.
  auto ipc_only = pin_namespaces(dir, {.net = false, .ipc = true, .uts = false}, "ignored");
  if (!ipc_only.is_ok() || !ipc_only->net.empty() || ipc_only->ipc.empty()) return 6;
  if (!unpin_namespaces(dir).is_ok()) return 7;
  return 0;
}

TEST_CASE("a sandbox's namespaces are pinned to files, joinable, and unpinned") {
  if (geteuid() != 0) {
    WARN("skipped: needs root (namespaces and bind mounts)");
    return;
  }
  TempDir dir;
  CHECK(testing::run_in_child({}, [&] { return pin_and_check(dir.path()); }) == 0);
}

}  // namespace
}  // namespace k3c::runtime
