// The descriptors of a StreamSession (runtime_service.h) on k3c's side, shared by the exec
// session (exec_session.cpp) and the attach session (attach_client.cpp): the caller's ends
// of the process's stdin, stdout and stderr, non-blocking, closed with the session.
#pragma once

#include <atomic>

#include "core/status.h"
#include "runtime/internal/tree_at.h"
#include "runtime/runtime_service.h"

namespace k3c::runtime::shim {

class SessionFds : public StreamSession {
 public:
  // Takes ownership; -1 for a stream not asked for. `stdin_is_terminal`: stdin is a
  // terminal's master (its own fd), so the end of stdin is the terminal's EOF character.
  SessionFds(int stdin_fd, int stdout_fd, int stderr_fd, bool stdin_is_terminal);
  ~SessionFds() override;
  SessionFds(const SessionFds&) = delete;
  SessionFds& operator=(const SessionFds&) = delete;

  int stdin_fd() const override { return stdin_.load(); }
  int stdout_fd() const override { return stdout_; }
  int stderr_fd() const override { return stderr_; }
  // Closes the caller's stdin end (stdin_fd() is -1 afterwards); for a terminal, first
  // writes its EOF character (VEOF, ^D), which ends a read at the start of a line.
  void close_stdin() override;

 private:
  std::atomic<int> stdin_;
  const int stdout_, stderr_;
  const bool stdin_is_terminal_;
};

// A pipe's two ends (CLOEXEC), for the session's streams.
struct PipeEnds {
  internal::Fd read, write;
};
Result<PipeEnds> make_pipe();

// O_NONBLOCK on `fd` (the caller's ends: one thread polls them all).
void set_nonblocking(int fd);

}  // namespace k3c::runtime::shim
