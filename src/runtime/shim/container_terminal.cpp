// A container process's terminal from its own devpts (see container_terminal.h).
#include "runtime/shim/container_terminal.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "runtime/files.h"
#include "runtime/internal/tree_at.h"
#include "runtime/shim/fd_passing.h"

namespace k3c::runtime::shim {

Result<int> open_container_terminal(int socket_fd) {
  internal::Fd master(open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC));
  if (master.get() < 0) return errno_status("open /dev/ptmx in the container", errno);
  if (unlockpt(master.get()) != 0) return errno_status("unlockpt", errno);
  const int slave = ioctl(master.get(), TIOCGPTPEER, O_RDWR | O_NOCTTY);
  if (slave < 0) return errno_status("open the terminal (TIOCGPTPEER)", errno);
  if (Status sent = send_fds(socket_fd, "t", {master.get()}); !sent.is_ok()) {
    close(slave);
    return sent;
  }
  return slave;
}

Result<int> receive_container_terminal(int socket_fd) {
  const int flags = fcntl(socket_fd, F_GETFL);
  if (flags < 0 || fcntl(socket_fd, F_SETFL, flags | O_NONBLOCK) != 0)
    return errno_status("set the terminal socket non-blocking", errno);
  ASSIGN_OR_RETURN(Received received, receive_fds(socket_fd, 16));
  if (received.fds.size() != 1) {
    for (int fd : received.fds) close(fd);
    return error(Code::kInternal, "the container's process sent no terminal");
  }
  return received.fds[0];
}

Status bind_console(int slave) {
  char pts[64];
  const std::string fd_link = "/proc/self/fd/" + std::to_string(slave);
  const ssize_t n = readlink(fd_link.c_str(), pts, sizeof pts - 1);
  if (n <= 0) return errno_status("readlink the terminal", errno);
  pts[n] = '\0';
  const int file = open("/dev/console", O_CREAT | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (file < 0) return errno_status("create /dev/console", errno);
  close(file);
  if (mount(pts, "/dev/console", nullptr, MS_BIND, nullptr) != 0)
    return errno_status(std::string("bind ") + pts + " on /dev/console", errno);
  return Status::ok();
}

}  // namespace k3c::runtime::shim
