// Walking and changing a directory tree strictly inside a root directory fd. Every path is
// resolved by openat2(2) with RESOLVE_IN_ROOT, so "..", absolute symlinks and symlinked
// parents all resolve inside the root, as if the root were "/" (Linux 5.6+); the final
// component is always acted on with *at calls that do not follow it.
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"

namespace k3c::runtime::internal {

// An owned file descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd();
  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  Fd& operator=(Fd&& other) noexcept;
  int get() const { return fd_; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

// Opens `path` (relative to the root, "" is the root itself) inside the root with `flags`.
Result<Fd> open_in_root(int root_fd, std::string_view path, int flags);

// The directory `path` inside the root, created (0755, like tar's implied parents) where
// missing. kInvalid when a component exists and is not a directory.
Result<Fd> make_dirs_in_root(int root_fd, std::string_view path);

// rm -rf of `name` in the directory `dir_fd`, never following symlinks; missing is fine.
Status remove_at(int dir_fd, const std::string& name);

}  // namespace k3c::runtime::internal
