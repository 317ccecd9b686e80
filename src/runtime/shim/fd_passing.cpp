// SCM_RIGHTS send and receive (see fd_passing.h).
#include "runtime/shim/fd_passing.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/files.h"

namespace k3c::runtime::shim {

Status send_fds(int socket_fd, const std::string& bytes, const std::vector<int>& fds) {
  if (bytes.empty() || fds.size() > kMaxPassedFds)
    return error(Code::kInvalid, "send_fds: bad arguments");
  iovec iov{const_cast<char*>(bytes.data()), bytes.size()};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxPassedFds)] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  if (!fds.empty()) {
    msg.msg_control = control;
    msg.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
    cmsghdr* cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(cmsg), fds.data(), sizeof(int) * fds.size());
  }
  for (;;) {
    const ssize_t n = sendmsg(socket_fd, &msg, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_status("sendmsg", errno);
    // A short write of a few bytes on a unix socket does not happen: the message fits.
    if (static_cast<size_t>(n) != bytes.size()) return error(Code::kInternal, "sendmsg: short");
    return Status::ok();
  }
}

Result<Received> receive_fds(int socket_fd, size_t max_bytes) {
  Received received;
  received.bytes.resize(max_bytes);
  iovec iov{received.bytes.data(), max_bytes};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxPassedFds)] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  ssize_t n;
  while ((n = recvmsg(socket_fd, &msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
  }
  if (n < 0) return errno_status("recvmsg", errno);
  received.bytes.resize(static_cast<size_t>(n));
  for (cmsghdr* cmsg = CMSG_FIRSTHDR(&msg); cmsg != nullptr; cmsg = CMSG_NXTHDR(&msg, cmsg)) {
    if (cmsg->cmsg_level != SOL_SOCKET || cmsg->cmsg_type != SCM_RIGHTS) continue;
    const size_t count = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < count; ++i) {
      int fd;
      std::memcpy(&fd, CMSG_DATA(cmsg) + i * sizeof(int), sizeof fd);
      received.fds.push_back(fd);
    }
  }
  if (msg.msg_flags & MSG_CTRUNC) {
    for (int fd : received.fds) close(fd);
    return error(Code::kInvalid, "recvmsg: too many file descriptors passed");
  }
  return received;
}

}  // namespace k3c::runtime::shim
