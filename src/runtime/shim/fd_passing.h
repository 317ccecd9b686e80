// Passing file descriptors over a unix socket (SCM_RIGHTS): the exec helper's child hands
// the terminal it opened inside the container to k3c, and an attach client hands the shim
// the pipes of its session (doc/runtime.md, "Attach").
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace k3c::runtime::shim {

inline constexpr size_t kMaxPassedFds = 4;

// Sends `bytes` (not empty) with `fds` attached, in one sendmsg.
Status send_fds(int socket_fd, const std::string& bytes, const std::vector<int>& fds);

struct Received {
  std::string bytes;     // empty at end of stream
  std::vector<int> fds;  // owned by the caller (CLOEXEC)
};

// One recvmsg of up to `max_bytes` with up to kMaxPassedFds fds. Blocks unless the socket
// is non-blocking (then EAGAIN is an error).
Result<Received> receive_fds(int socket_fd, size_t max_bytes);

}  // namespace k3c::runtime::shim
