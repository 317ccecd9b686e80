// The shim's side of attach (doc/runtime.md, "Attach"): a unix socket `attach.sock` in the
// container's state directory. A client (k3c's attach session, attach_client.cpp) connects
// and passes the pipes of its session; the shim copies the container's live output into
// them (besides the CRI log), forwards their stdin into the container's stdin, resizes the
// terminal on request and tells each client the exit code when the container exits.
//
// Single-threaded: it lives in the shim's poll loop (shim_run.cpp), which polls the fds it
// adds and hands the results back. Bounded: at most kMaxClients, one 16 KiB stdin buffer,
// and a client that cannot take the output as fast as the container writes it is
// disconnected rather than allowed to stall the log.
#pragma once

#include <poll.h>

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace k3c::runtime::shim {

inline constexpr char kAttachSocket[] = "attach.sock";

// What the clients attach to.
struct AttachTarget {
  // The container's stdin (the pipe's write end, or the terminal's master); -1 when the
  // container was created without stdin. A pipe is the server's to close (stdinOnce).
  int stdin_fd = -1;
  int terminal_fd = -1;  // the terminal's master (resize); -1 without a terminal
  bool stdin_once = false;
};

class AttachServer {
 public:
  static constexpr size_t kMaxClients = 8;

  AttachServer() = default;
  ~AttachServer();
  AttachServer(const AttachServer&) = delete;
  AttachServer& operator=(const AttachServer&) = delete;

  // Listens on <state_dir>/attach.sock; the target's stdin fd is made non-blocking. On an
  // error the shim runs on without attach (clients then find no socket).
  Status listen(const std::string& state_dir, const AttachTarget& target);

  // Appends the fds to poll to `fds`; after poll, `handle` gets the same entries back.
  void add_poll_fds(std::vector<pollfd>& fds);
  void handle(const pollfd* fds, size_t count);

  // The container wrote `bytes` to its stdout (or stderr): copied to the attached clients.
  void fan_out(bool stderr_stream, std::string_view bytes);

  // The shim closed `fd` (a terminal whose other side is gone): the server stops using it.
  void forget(int fd);

  // The container exited: each client's pipes are closed, it gets "exit <code>\n", and the
  // socket is closed and removed.
  void finish(int exit_code);

 private:
  struct Client {
    int control = -1;  // the connection; -1: a free slot
    bool greeted = false;
    int in = -1, out = -1, err = -1;  // its pipes: stdin read end, stdout/stderr write ends
    char line[128];
    size_t used = 0;
  };
  enum class Slot { kListen, kStdin, kControl, kClientStdin };

  void accept_client();
  void greet(Client& client);
  void read_control(Client& client);
  void read_client_stdin(Client& client);
  void write_stdin();
  void client_stdin_ended(Client& client, bool detach_output);
  void drop(Client& client, const char* why);
  void close_container_stdin();

  int dir_fd_ = -1;
  int listen_fd_ = -1;
  AttachTarget target_;
  bool close_stdin_when_flushed_ = false;
  Client clients_[kMaxClients];
  std::vector<std::pair<Slot, size_t>> slots_;  // what each polled fd is (client index)
  char pending_[16 * 1024];                     // stdin read from a client, not yet written
  size_t pending_len_ = 0, pending_off_ = 0;
};

}  // namespace k3c::runtime::shim
