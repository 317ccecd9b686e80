// Role lifecycle: ReadinessLatch and RoleRunner (see lifecycle.h).
#include "core/lifecycle.h"

#include <thread>

#include "core/log.h"

namespace k3c {

void ReadinessLatch::set() {
  {
    std::lock_guard lock(mu_);
    set_ = true;
  }
  cv_.notify_all();
}

bool ReadinessLatch::is_set() const {
  std::lock_guard lock(mu_);
  return set_;
}

bool ReadinessLatch::wait_for(std::chrono::nanoseconds timeout) const {
  std::unique_lock lock(mu_);
  return cv_.wait_for(lock, timeout, [this] { return set_; });
}

void ReadinessLatch::wait() const {
  std::unique_lock lock(mu_);
  cv_.wait(lock, [this] { return set_; });
}

namespace {

using SteadyTime = std::chrono::steady_clock::time_point;

// Every role is asked to stop and given at least this long, even once the overall budget is
// spent: a hung apiserver must not keep the store from closing its database cleanly.
constexpr std::chrono::milliseconds kMinStopGrace{100};

// Runs role->stop() on a helper thread and waits until `deadline` (or kMinStopGrace,
// whichever is later). Returns true when stop() returned in time.
//
// Why a detached thread rather than a join with timeout: std::thread cannot be joined with a
// timeout, and waiting for a hung stop() would hold the whole shutdown past its deadline. The
// helper owns a reference to the role and to the completion flag, so detaching it cannot
// leave it pointing at freed memory; if the process exits first the thread simply ends with it.
bool stop_with_deadline(const std::shared_ptr<Role>& role, SteadyTime deadline) {
  struct Completion {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;  // guarded by mu
  };
  auto completion = std::make_shared<Completion>();
  std::thread helper([role, completion] {
    role->stop();
    {
      std::lock_guard lock(completion->mu);
      completion->done = true;
    }
    completion->cv.notify_all();
  });
  const SteadyTime floor = std::chrono::steady_clock::now() + kMinStopGrace;
  const SteadyTime until = std::max(deadline, floor);
  bool done;
  {
    std::unique_lock lock(completion->mu);
    done = completion->cv.wait_until(lock, until, [&] { return completion->done; });
  }
  if (done) {
    helper.join();
  } else {
    helper.detach();
  }
  return done;
}

}  // namespace

RoleRunner::RoleRunner(std::vector<std::shared_ptr<Role>> roles,
                       std::chrono::milliseconds start_failure_budget)
    : roles_(std::move(roles)), start_failure_budget_(start_failure_budget) {}

RoleRunner::~RoleRunner() {
  // An owner that forgot stop_all() still gets its roles stopped.
  if (started_ > 0) (void)stop_all(start_failure_budget_);  // report only of use to logs
}

Status RoleRunner::start_all() {
  while (started_ < roles_.size()) {
    const auto& role = roles_[started_];
    auto logger = log::for_role(role->name());
    logger->info("starting");
    const auto began = std::chrono::steady_clock::now();
    Status status = role->start();
    if (!status.is_ok()) {
      logger->error("start failed: {}", status.to_string());
      // The failed role holds nothing (Role::start contract); stop the ones before it.
      (void)stop_all(start_failure_budget_);  // each stop is logged where it happens
      return Status(status.code(), std::string(role->name()) + ": " + status.message());
    }
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - began);
    logger->info("started in {} ms", took.count());
    ++started_;
  }
  return Status::ok();
}

StopReport RoleRunner::stop_all(std::chrono::milliseconds budget) {
  StopReport report;
  const SteadyTime deadline = std::chrono::steady_clock::now() + budget;
  while (started_ > 0) {
    const auto& role = roles_[started_ - 1];
    --started_;
    auto logger = log::for_role(role->name());
    logger->info("stopping");
    const auto began = std::chrono::steady_clock::now();
    if (stop_with_deadline(role, deadline)) {
      const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
          std::chrono::steady_clock::now() - began);
      logger->info("stopped in {} ms", took.count());
      report.stopped.emplace_back(role->name());
    } else {
      logger->warn("stop overran the shutdown deadline ({} ms budget); skipped", budget.count());
      report.overran.emplace_back(role->name());
    }
  }
  return report;
}

std::vector<std::string> RoleRunner::running() const {
  std::vector<std::string> names;
  for (size_t i = 0; i < started_; ++i) names.emplace_back(roles_[i]->name());
  return names;
}

}  // namespace k3c
