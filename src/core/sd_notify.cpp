// sd_notify over an AF_UNIX datagram socket (see sd_notify.h).
#include "core/sd_notify.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <string>

namespace k3c {

Status sd_notify(std::string_view socket_path, std::string_view state) {
  if (socket_path.empty()) return Status::ok();
  const std::string where = "NOTIFY_SOCKET " + std::string(socket_path);
  if (socket_path.front() != '/' && socket_path.front() != '@') {
    return error(Code::kInvalid, where + ": not an absolute path or an @abstract name");
  }
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (socket_path.size() >= sizeof addr.sun_path) {
    return error(Code::kInvalid, where + ": longer than a socket address allows");
  }
  std::memcpy(addr.sun_path, socket_path.data(), socket_path.size());
  // An abstract name has a NUL where the '@' is and is not NUL-terminated: its length is
  // exactly what the address length says.
  if (socket_path.front() == '@') addr.sun_path[0] = '\0';
  const auto addr_len =
      static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + socket_path.size());

  int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return error(Code::kInternal, where + ": socket: " + std::strerror(errno));
  // Never wait: a service manager that stopped reading must not hang k3c's start or stop.
  ssize_t sent = sendto(fd, state.data(), state.size(), MSG_NOSIGNAL | MSG_DONTWAIT,
                        reinterpret_cast<const sockaddr*>(&addr), addr_len);
  const int sent_errno = errno;
  close(fd);
  if (sent < 0) {
    return error(Code::kServiceUnavailable, where + ": sendto: " + std::strerror(sent_errno));
  }
  if (static_cast<size_t>(sent) != state.size()) {
    return error(Code::kInternal, where + ": short write");
  }
  return Status::ok();
}

}  // namespace k3c
