// What LinuxRuntime's root-only tests (linux_runtime_test.cpp, linux_runtime_streams_test.cpp)
// share: the skip when not root or without busybox-static, a runtime with the busybox image
// imported as busybox:test, and reaping detached shims (the test binary is their subreaper).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <memory>
#include <string>

#include "images/test_images.h"
#include "runtime/linux_runtime.h"

#define REQUIRE_ROOT_AND_BUSYBOX()                                              \
  do {                                                                          \
    if (geteuid() != 0) {                                                       \
      WARN("skipped: containers need root (mount, namespaces, cgroups)");       \
      return;                                                                   \
    }                                                                           \
    if (access(k3c::testing::kBusyboxPath, X_OK) != 0) {                        \
      WARN("skipped: /bin/busybox (Debian's busybox-static) is not installed"); \
      return;                                                                   \
    }                                                                           \
  } while (0)

namespace k3c::runtime {

inline void reap_orphans() {
  while (waitpid(-1, nullptr, WNOHANG) > 0) {
  }
}

// A runtime over `dir`/data (cgroups under /sys/fs/cgroup) with busybox:test imported.
inline std::unique_ptr<LinuxRuntime> runtime_with_busybox(const std::string& dir) {
  auto opened = LinuxRuntime::open({dir + "/data", "", "/sys/fs/cgroup", nullptr});
  REQUIRE(opened.is_ok());
  const std::string tar = dir + "/busybox.tar";
  std::ofstream(tar, std::ios::binary)
      << testing::tar_of(testing::docker_archive_files(testing::busybox_image("busybox:test")),
                         testing::Compression::kNone);
  REQUIRE((*opened)->images().import_file(tar).is_ok());
  return std::move(*opened);
}

}  // namespace k3c::runtime
