// Shutdown signals: SIGTERM and SIGINT become a graceful-stop request on a watcher thread
// (no work in a signal handler); a second signal forces an immediate exit.
#pragma once

#include <signal.h>

#include <atomic>
#include <memory>
#include <thread>

#include "core/lifecycle.h"
#include "core/status.h"

namespace k3c {

// Owns the watcher thread. Create it in main()'s thread before any other thread starts:
// install() blocks SIGTERM and SIGINT in the calling thread, threads started afterwards
// inherit that mask, and the watcher reads the signals from a signalfd.
//
// First signal: stop_requested() is set and the owner begins its graceful stop.
// Second signal: the process ends at once with _exit(128 + signal number), i.e. 143 for
// SIGTERM and 130 for SIGINT, whatever the roles are doing.
//
// Threads: stop_requested() and signal_number() may be called from any thread; install()
// and the destructor from the owner's thread.
class ShutdownSignals {
 public:
  static Result<std::unique_ptr<ShutdownSignals>> install();
  // Stops the watcher thread and restores the owner thread's signal mask.
  ~ShutdownSignals();

  ShutdownSignals(const ShutdownSignals&) = delete;
  ShutdownSignals& operator=(const ShutdownSignals&) = delete;

  const ReadinessLatch& stop_requested() const { return stop_requested_; }
  // The first signal received (SIGTERM or SIGINT); 0 before any.
  int signal_number() const { return first_signal_.load(); }

 private:
  ShutdownSignals(int signal_fd, int wake_fd, sigset_t previous_mask);
  void watch();

  int signal_fd_;
  int wake_fd_;  // an eventfd the destructor writes to end watch()
  sigset_t previous_mask_;
  ReadinessLatch stop_requested_;
  std::atomic<int> first_signal_{0};
  std::thread watcher_;
};

}  // namespace k3c
