// Shutdown signals through a signalfd read on a watcher thread (see signals.h).
#include "core/signals.h"

#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "core/log.h"

namespace k3c {

Result<std::unique_ptr<ShutdownSignals>> ShutdownSignals::install() {
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGTERM);
  sigaddset(&mask, SIGINT);
  sigset_t previous;
  if (int rc = pthread_sigmask(SIG_BLOCK, &mask, &previous); rc != 0) {
    return error(Code::kInternal, std::string("pthread_sigmask: ") + std::strerror(rc));
  }
  int signal_fd = signalfd(-1, &mask, SFD_CLOEXEC);
  if (signal_fd < 0) {
    std::string message = std::string("signalfd: ") + std::strerror(errno);
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    return error(Code::kInternal, message);
  }
  int wake_fd = eventfd(0, EFD_CLOEXEC);
  if (wake_fd < 0) {
    std::string message = std::string("eventfd: ") + std::strerror(errno);
    close(signal_fd);
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    return error(Code::kInternal, message);
  }
  // new: the constructor is private.
  return std::unique_ptr<ShutdownSignals>(new ShutdownSignals(signal_fd, wake_fd, previous));
}

ShutdownSignals::ShutdownSignals(int signal_fd, int wake_fd, sigset_t previous_mask)
    : signal_fd_(signal_fd), wake_fd_(wake_fd), previous_mask_(previous_mask) {
  watcher_ = std::thread([this] { watch(); });
}

ShutdownSignals::~ShutdownSignals() {
  const uint64_t one = 1;
  // A failed write would leave the join below hanging; eventfd writes of 1 cannot fail
  // unless the counter overflows, which one write cannot do.
  (void)!write(wake_fd_, &one, sizeof one);
  watcher_.join();
  close(signal_fd_);
  close(wake_fd_);
  pthread_sigmask(SIG_SETMASK, &previous_mask_, nullptr);
}

void ShutdownSignals::watch() {
  // The logger is looked up at each event, not once here: the owner sets up logging (log
  // file, level) after install(), and the lines must go where it says.
  pollfd fds[2] = {{signal_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
  for (;;) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      log::for_role("signals")->error("poll: {}; signals are no longer watched",
                                      std::strerror(errno));
      return;
    }
    if (fds[1].revents != 0) return;  // the destructor asks us to end
    signalfd_siginfo info;
    if (read(signal_fd_, &info, sizeof info) != static_cast<ssize_t>(sizeof info)) continue;
    const int signo = static_cast<int>(info.ssi_signo);
    const char* name = signo == SIGTERM ? "SIGTERM" : "SIGINT";  // the only two in the mask
    auto logger = log::for_role("signals");
    int expected = 0;
    if (first_signal_.compare_exchange_strong(expected, signo)) {
      logger->info("received {}; stopping (a second signal exits at once)", name);
      stop_requested_.set();
      continue;
    }
    logger->warn("received {} while stopping; exiting now without a graceful stop", name);
    logger->flush();
    _exit(128 + signo);
  }
}

}  // namespace k3c
