// The shim's attach socket (see attach_server.h; the protocol is in doc/runtime.md).
#include "runtime/shim/attach_server.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "runtime/files.h"
#include "runtime/shim/fd_passing.h"

namespace k3c::runtime::shim {
namespace {

constexpr int kClientPipeBytes = 1 << 20;  // pipe-max-size's default

void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

void send_line(int fd, const std::string& line) {
  // Non-blocking and tiny: the socket buffer of a live client has room; else it is gone.
  [[maybe_unused]] ssize_t n = send(fd, line.data(), line.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

// "/proc/self/fd/<dir>/attach.sock": a socket path is limited to 108 bytes, the state
// directory's path may be longer.
std::string socket_path(int dir_fd) {
  return "/proc/self/fd/" + std::to_string(dir_fd) + "/" + kAttachSocket;
}

}  // namespace

AttachServer::~AttachServer() {
  for (Client& c : clients_) drop(c, nullptr);
  close_fd(listen_fd_);
  close_fd(dir_fd_);
}

Status AttachServer::listen(const std::string& state_dir, const AttachTarget& target) {
  target_ = target;
  if (target_.stdin_fd >= 0) {
    fcntl(target_.stdin_fd, F_SETFL, fcntl(target_.stdin_fd, F_GETFL) | O_NONBLOCK);
  }
  dir_fd_ = open(state_dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd_ < 0) return errno_status("open " + state_dir, errno);
  listen_fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) return errno_status("socket", errno);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const std::string path = socket_path(dir_fd_);
  std::snprintf(address.sun_path, sizeof address.sun_path, "%s", path.c_str());
  unlinkat(dir_fd_, kAttachSocket, 0);  // a leftover of a shim that was killed
  if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(listen_fd_, 4) != 0) {
    const Status status = errno_status("listen on " + state_dir + "/" + kAttachSocket, errno);
    close_fd(listen_fd_);
    return status;
  }
  return Status::ok();
}

void AttachServer::add_poll_fds(std::vector<pollfd>& fds) {
  slots_.clear();
  const auto add = [&](int fd, short events, Slot slot, size_t index) {
    fds.push_back({fd, events, 0});
    slots_.push_back({slot, index});
  };
  if (listen_fd_ < 0) return;
  add(listen_fd_, POLLIN, Slot::kListen, 0);
  if (pending_len_ > 0) add(target_.stdin_fd, POLLOUT, Slot::kStdin, 0);
  for (size_t i = 0; i < kMaxClients; ++i) {
    const Client& c = clients_[i];
    if (c.control < 0) continue;
    add(c.control, POLLIN, Slot::kControl, i);
    // Backpressure: a client's stdin is read only when the last read has been written.
    if (c.in >= 0 && pending_len_ == 0) add(c.in, POLLIN, Slot::kClientStdin, i);
  }
}

void AttachServer::handle(const pollfd* fds, size_t count) {
  for (size_t i = 0; i < count && i < slots_.size(); ++i) {
    if (fds[i].revents == 0) continue;
    const auto [slot, index] = slots_[i];
    Client& c = clients_[index];
    // An entry whose fd is no longer what it was (a client dropped, its slot taken by a new
    // one meanwhile) is stale: skip it.
    switch (slot) {
      case Slot::kListen:
        accept_client();
        break;
      case Slot::kStdin:
        if (fds[i].fd == target_.stdin_fd) write_stdin();
        break;
      case Slot::kControl:
        if (fds[i].fd == c.control) read_control(c);
        break;
      case Slot::kClientStdin:
        if (fds[i].fd == c.in && pending_len_ == 0) read_client_stdin(c);
        break;
    }
  }
}

void AttachServer::accept_client() {
  const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (fd < 0) return;
  for (Client& c : clients_) {
    if (c.control >= 0) continue;
    c = Client{};
    c.control = fd;
    return;
  }
  send_line(fd, "error too many clients are attached to this container\n");
  close(fd);
}

// The first message: "attach <stdin> <stdout> <stderr>\n" (each 0 or 1) with the pipes for
// the ones that are 1, in that order.
void AttachServer::greet(Client& c) {
  pollfd ready{c.control, POLLIN, 0};
  if (poll(&ready, 1, 0) == 0) return;  // nothing yet (the socket is non-blocking)
  auto hello = receive_fds(c.control, sizeof c.line - 1);
  if (!hello.is_ok() || hello->bytes.empty()) return drop(c, nullptr);
  int want[3] = {0, 0, 0};
  const bool parsed =
      std::sscanf(hello->bytes.c_str(), "attach %d %d %d", &want[0], &want[1], &want[2]) == 3 &&
      hello->bytes.back() == '\n';
  size_t expected = 0;
  for (int w : want) expected += w == 1 ? 1 : 0;
  if (!parsed || expected != hello->fds.size()) {
    for (int fd : hello->fds) close(fd);
    return drop(c, "error malformed attach request\n");
  }
  size_t next = 0;
  int* ends[3] = {&c.in, &c.out, &c.err};
  for (int i = 0; i < 3; ++i) {
    if (want[i] == 1) *ends[i] = hello->fds[next++];
  }
  for (int fd : {c.in, c.out, c.err}) {
    if (fd >= 0) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  }
  for (int fd : {c.out, c.err}) {
    if (fd >= 0) fcntl(fd, F_SETPIPE_SZ, kClientPipeBytes);  // best effort
  }
  // A container without stdin (or whose stdin is closed) ignores the client's, as containerd.
  if (target_.stdin_fd < 0) close_fd(c.in);
  if (target_.terminal_fd >= 0) close_fd(c.err);  // a terminal has one output stream
  c.greeted = true;
  send_line(c.control, "ok\n");
}

// Later messages: "resize <columns> <rows>\n".
void AttachServer::read_control(Client& c) {
  if (!c.greeted) return greet(c);
  const ssize_t n = read(c.control, c.line + c.used, sizeof c.line - 1 - c.used);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (n <= 0) {  // detached
    if (c.in >= 0) client_stdin_ended(c, false);
    return drop(c, nullptr);
  }
  c.used += static_cast<size_t>(n);
  for (char* newline; (newline = static_cast<char*>(memchr(c.line, '\n', c.used))) != nullptr;) {
    *newline = '\0';
    unsigned columns = 0, rows = 0;
    if (std::sscanf(c.line, "resize %u %u", &columns, &rows) == 2 && target_.terminal_fd >= 0) {
      winsize size{};
      size.ws_col = static_cast<unsigned short>(columns);
      size.ws_row = static_cast<unsigned short>(rows);
      ioctl(target_.terminal_fd, TIOCSWINSZ, &size);
    }
    const size_t consumed = static_cast<size_t>(newline - c.line) + 1;
    std::memmove(c.line, c.line + consumed, c.used - consumed);
    c.used -= consumed;
  }
  if (c.used == sizeof c.line - 1) drop(c, "error control line too long\n");
}

void AttachServer::read_client_stdin(Client& c) {
  const ssize_t n = read(c.in, pending_, sizeof pending_);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (n <= 0) return client_stdin_ended(c, true);
  pending_len_ = static_cast<size_t>(n);
  pending_off_ = 0;
  write_stdin();
}

void AttachServer::write_stdin() {
  while (pending_len_ > 0 && target_.stdin_fd >= 0) {
    const ssize_t n = write(target_.stdin_fd, pending_ + pending_off_, pending_len_);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) return;  // polled for POLLOUT
    if (n < 0) {                           // the container closed its stdin
      pending_len_ = 0;
      break;
    }
    pending_off_ += static_cast<size_t>(n);
    pending_len_ -= static_cast<size_t>(n);
  }
  if (pending_len_ == 0 && close_stdin_when_flushed_) close_container_stdin();
}

// containerd's rule: with stdinOnce (and no terminal) the end of the first client's stdin
// closes the container's stdin and the client keeps its output; otherwise the end of a
// client's stdin detaches that client.
void AttachServer::client_stdin_ended(Client& c, bool detach_output) {
  close_fd(c.in);
  if (target_.stdin_once && target_.terminal_fd < 0) {
    close_stdin_when_flushed_ = true;
    if (pending_len_ == 0) close_container_stdin();
    return;
  }
  if (detach_output) drop(c, "detached\n");
}

void AttachServer::close_container_stdin() {
  close_stdin_when_flushed_ = false;
  if (target_.terminal_fd >= 0) return;  // the master is also the output: never closed here
  close_fd(target_.stdin_fd);
  for (Client& c : clients_) close_fd(c.in);
}

void AttachServer::drop(Client& c, const char* why) {
  if (c.control < 0) return;
  if (why != nullptr) send_line(c.control, why);
  for (int* fd : {&c.in, &c.out, &c.err, &c.control}) close_fd(*fd);
  c = Client{};
}

void AttachServer::fan_out(bool stderr_stream, std::string_view bytes) {
  for (Client& c : clients_) {
    const int fd = stderr_stream ? c.err : c.out;
    if (c.control < 0 || !c.greeted || fd < 0) continue;
    const ssize_t n = write(fd, bytes.data(), bytes.size());
    if (n == static_cast<ssize_t>(bytes.size())) continue;
    if (n < 0 && errno == EPIPE) {
      drop(c, nullptr);  // the client closed its end
    } else {
      drop(c, "error the attached client did not keep up with the container's output\n");
    }
  }
}

void AttachServer::forget(int fd) {
  if (target_.stdin_fd == fd) target_.stdin_fd = -1;
  if (target_.terminal_fd == fd) target_.terminal_fd = -1;
  if (target_.stdin_fd < 0) pending_len_ = 0;
}

void AttachServer::finish(int exit_code) {
  for (Client& c : clients_) {
    if (c.control < 0) continue;
    for (int* fd : {&c.in, &c.out, &c.err}) close_fd(*fd);
    drop(c, c.greeted ? ("exit " + std::to_string(exit_code) + "\n").c_str() : nullptr);
  }
  if (listen_fd_ >= 0) {
    close_fd(listen_fd_);
    unlinkat(dir_fd_, kAttachSocket, 0);
  }
}

}  // namespace k3c::runtime::shim
