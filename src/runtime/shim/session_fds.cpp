// The descriptors of a stream session (see session_fds.h).
#include "runtime/shim/session_fds.h"

#include <fcntl.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>

#include "runtime/files.h"

namespace k3c::runtime::shim {

SessionFds::SessionFds(int stdin_fd, int stdout_fd, int stderr_fd, bool stdin_is_terminal)
    : stdin_(stdin_fd),
      stdout_(stdout_fd),
      stderr_(stderr_fd),
      stdin_is_terminal_(stdin_is_terminal) {
  for (int fd : {stdin_fd, stdout_fd, stderr_fd}) set_nonblocking(fd);
}

SessionFds::~SessionFds() {
  close_stdin();
  for (int fd : {stdout_, stderr_}) {
    if (fd >= 0) close(fd);
  }
}

void SessionFds::close_stdin() {
  const int fd = stdin_.exchange(-1);
  if (fd < 0) return;
  if (stdin_is_terminal_) {
    termios modes{};
    const char eof = tcgetattr(fd, &modes) == 0 ? static_cast<char>(modes.c_cc[VEOF]) : '\x04';
    // Best effort: a full terminal buffer means the process does not read anyway.
    [[maybe_unused]] ssize_t n = write(fd, &eof, 1);
  }
  close(fd);
}

Result<PipeEnds> make_pipe() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return errno_status("pipe", errno);
  return PipeEnds{internal::Fd(fds[0]), internal::Fd(fds[1])};
}

void set_nonblocking(int fd) {
  if (fd < 0) return;
  const int flags = fcntl(fd, F_GETFL);
  if (flags >= 0) fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

}  // namespace k3c::runtime::shim
