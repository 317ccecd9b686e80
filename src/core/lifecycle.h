// Role lifecycle: the Role interface every component of the k3c process implements, the
// ReadinessLatch roles use to wait for each other, and the RoleRunner that starts roles in
// order and stops them in reverse within a deadline.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace k3c {

// A component of the process (store, apiserver, scheduler, kubelet, ...).
// Threads: start() and stop() are called by the RoleRunner's thread; stop() may also run on a
// helper thread the runner starts (see RoleRunner::stop_all); ready() may be called from any
// thread.
class Role {
 public:
  virtual ~Role() = default;
  // A short stable name used in logs ("store", "apiserver").
  virtual std::string_view name() const = 0;
  // Brings the role up; may block until it is up. A non-ok Status means the role is not
  // running and holds nothing that needs stop().
  virtual Status start() = 0;
  // Stops the role. Idempotent; safe to call when start() failed or never ran. Should return
  // promptly: the runner gives up waiting at its deadline and moves on.
  virtual void stop() = 0;
  // True while the role is up and serving.
  virtual bool ready() const = 0;
};

// A one-shot signal between roles: set() once, any number of threads wait for it.
// Thread-safe. set() after the first call does nothing.
class ReadinessLatch {
 public:
  void set();
  bool is_set() const;
  // True when the latch was set before `timeout` ran out.
  bool wait_for(std::chrono::nanoseconds timeout) const;
  // Waits without a limit.
  void wait() const;

 private:
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  bool set_ = false;  // guarded by mu_
};

// What stop_all() did, for logs and tests.
struct StopReport {
  std::vector<std::string> stopped;  // roles whose stop() returned in time, in stop order
  std::vector<std::string> overran;  // roles skipped because stop() ran past the deadline
};

// Starts roles in the order given and stops them in reverse.
//
// Ownership: the runner shares ownership of each role with the stop helper threads, so a role
// whose stop() overran stays alive until its stop() returns, even after the runner is gone.
// Threads: start_all(), stop_all() and running() are called from one thread (the owner's);
// the runner is not safe for concurrent use.
class RoleRunner {
 public:
  // `start_failure_budget` bounds the stop of the already-started roles when a later role
  // fails to start.
  explicit RoleRunner(std::vector<std::shared_ptr<Role>> roles,
                      std::chrono::milliseconds start_failure_budget = std::chrono::seconds(10));
  ~RoleRunner();

  RoleRunner(const RoleRunner&) = delete;
  RoleRunner& operator=(const RoleRunner&) = delete;

  // Starts each role in order. When one fails, the roles already started are stopped in
  // reverse order and its error is returned, prefixed with the role's name. Call once.
  Status start_all();

  // Stops the running roles in reverse start order. Each stop() runs on a helper thread;
  // when the overall `budget` runs out while one is still stopping, that role is logged as
  // overrun and skipped (its helper thread is detached and keeps the role alive until its
  // stop() returns) and the next role is stopped with whatever budget is left (at least a
  // short grace period, so every role is asked to stop). Idempotent.
  StopReport stop_all(std::chrono::milliseconds budget);

  // Names of the roles started and not yet stopped, in start order.
  std::vector<std::string> running() const;

 private:
  std::vector<std::shared_ptr<Role>> roles_;
  size_t started_ = 0;  // roles_[0, started_) are running
  std::chrono::milliseconds start_failure_budget_;
};

}  // namespace k3c
