// attach_container: k3c's side of the shim's attach socket (attach_server.h; the protocol
// is in doc/runtime.md): the session's pipes are made here and their far ends passed to
// the shim, so the caller reads and writes plain pipes.
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "runtime/files.h"
#include "runtime/internal/tree_at.h"
#include "runtime/shim/attach_server.h"
#include "runtime/shim/container_process.h"
#include "runtime/shim/fd_passing.h"
#include "runtime/shim/session_fds.h"

namespace k3c::runtime {
namespace {

using namespace shim;
using internal::Fd;

constexpr int kReplyTimeoutMs = 10 * 1000;

class AttachSession final : public SessionFds {
 public:
  AttachSession(Fd control, int stdin_fd, int stdout_fd, int stderr_fd, bool tty)
      : SessionFds(stdin_fd, stdout_fd, stderr_fd, false),
        control_(std::move(control)),
        tty_(tty) {}
  ~AttachSession() override { cancel(); }

  Status resize(uint16_t columns, uint16_t rows) override {
    if (!tty_) return error(Code::kInvalid, "resize needs a terminal (tty)");
    const std::string line =
        "resize " + std::to_string(columns) + " " + std::to_string(rows) + "\n";
    std::lock_guard lock(write_mu_);
    if (send(control_.get(), line.data(), line.size(), MSG_NOSIGNAL) !=
        static_cast<ssize_t>(line.size()))
      return errno_status("resize the attached terminal", errno);
    return Status::ok();
  }

  // Reads the shim's lines until "exit <code>" or the end of the connection.
  Result<int> wait() override {
    std::string got;
    char buf[256];
    for (;;) {
      const ssize_t n = recv(control_.get(), buf, sizeof buf, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got.append(buf, static_cast<size_t>(n));
      if (got.size() > 4096) break;
    }
    if (cancelled_.load())
      return error(Code::kServiceUnavailable, "the attach session was cancelled");
    int code = 0;
    // The end of this client's stdin detached it (containerd's rule without stdinOnce): a
    // normal end of the session, the container runs on.
    if (got.find("detached\n") != std::string::npos) return 0;
    const size_t exit = got.find("exit ");
    if (exit != std::string::npos && std::sscanf(got.c_str() + exit, "exit %d", &code) == 1)
      return code;
    const size_t err = got.find("error ");
    if (err != std::string::npos) {
      std::string message = got.substr(err + 6);
      if (!message.empty() && message.back() == '\n') message.pop_back();
      return error(Code::kServiceUnavailable, "the shim detached the session: " + message);
    }
    return error(Code::kServiceUnavailable, "the attach session ended before the container exited");
  }

  // Detaches: the shim sees the connection end and forgets this client; wait() returns.
  void cancel() override {
    if (cancelled_.exchange(true)) return;
    shutdown(control_.get(), SHUT_RDWR);
  }

 private:
  const Fd control_;
  const bool tty_;
  std::mutex write_mu_;  // serialises resize messages
  std::atomic<bool> cancelled_{false};
};

Result<Fd> connect_to_shim(const std::string& state_dir) {
  Fd dir(open(state_dir.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() < 0) return errno_status("open " + state_dir, errno);
  Fd sock(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (sock.get() < 0) return errno_status("socket", errno);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  // Through the directory's fd: the state directory's path may be longer than 108 bytes.
  std::snprintf(address.sun_path, sizeof address.sun_path, "/proc/self/fd/%d/%s", dir.get(),
                kAttachSocket);
  if (connect(sock.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    if (errno == ENOENT) {
      return error(Code::kNotImplemented,
                   "this container's shim does not serve attach (no " + std::string(kAttachSocket) +
                       "): it was started by an older k3c; restart the container to attach to it");
    }
    if (errno == ECONNREFUSED) {
      return error(Code::kServiceUnavailable,
                   "this container's shim is gone (the container runs on unsupervised): "
                   "attach needs it; restart the container");
    }
    return errno_status("connect to the shim's attach socket", errno);
  }
  return sock;
}

// The shim's answer to the request: "ok\n" or "error <message>\n".
Status read_reply(int sock) {
  std::string reply;
  char c;
  while (reply.size() < 512) {
    pollfd p{sock, POLLIN, 0};
    const int ready = poll(&p, 1, kReplyTimeoutMs);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) return error(Code::kTimeout, "the shim did not answer the attach request");
    const ssize_t n = recv(sock, &c, 1, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return error(Code::kInternal, "the shim closed the attach connection");
    if (c == '\n') break;
    reply += c;
  }
  if (reply == "ok") return Status::ok();
  if (reply.rfind("error ", 0) == 0) return error(Code::kServiceUnavailable, reply.substr(6));
  return error(Code::kInternal, "unexpected answer from the shim: " + reply);
}

}  // namespace

Result<std::unique_ptr<StreamSession>> attach_container(const std::string& state_dir,
                                                        const StreamOptions& options, bool tty) {
  ASSIGN_OR_RETURN(Fd sock, connect_to_shim(state_dir));
  PipeEnds in, out, err;
  std::vector<int> theirs;
  if (options.stdin) {
    ASSIGN_OR_RETURN(in, make_pipe());
    theirs.push_back(in.read.get());
  }
  if (options.stdout || (tty && options.stderr)) {
    ASSIGN_OR_RETURN(out, make_pipe());
    theirs.push_back(out.write.get());
  }
  const bool want_stderr = options.stderr && !tty;  // a terminal has one stream
  if (want_stderr) {
    ASSIGN_OR_RETURN(err, make_pipe());
    theirs.push_back(err.write.get());
  }
  const std::string request = std::string("attach ") + (options.stdin ? "1" : "0") + " " +
                              (out.write.get() >= 0 ? "1" : "0") + " " + (want_stderr ? "1" : "0") +
                              "\n";
  RETURN_IF_ERROR(send_fds(sock.get(), request, theirs));
  // The shim has its copies now.
  in.read = Fd();
  out.write = Fd();
  err.write = Fd();
  RETURN_IF_ERROR(read_reply(sock.get()));
  return std::unique_ptr<StreamSession>(std::make_unique<AttachSession>(
      std::move(sock), in.write.release(), out.read.release(), err.read.release(), tty));
}

}  // namespace k3c::runtime
