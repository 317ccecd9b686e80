#include "roles/controllers/common/controller.h"

#include <pthread.h>

#include <algorithm>

#include "core/log.h"

namespace k3c::controllers {
namespace {
// An extra worker ends after this long without a key.
constexpr auto kExtraWorkerIdle = std::chrono::seconds(30);
}  // namespace

Controller::~Controller() { stop(); }

void Controller::run(int workers) {
  std::lock_guard lock(mu_);
  if (stopped_ || live_ > 0) return;
  max_workers_ = std::max(1, workers);
  ++live_;
  workers_.start([this] { work(true); });
}

void Controller::stop() {
  queue_.shut_down();
  std::list<std::thread> joining;
  {
    std::lock_guard lock(mu_);
    stopped_ = true;
    joining = workers_.take_all();
  }
  ThreadSet::join(joining);
}

int Controller::live_workers() const {
  std::lock_guard lock(mu_);
  return live_;
}

void Controller::grow_if_behind() {
  std::lock_guard lock(mu_);
  workers_.reap();  // the extra workers that ended: their stacks go back
  if (stopped_ || busy_ < live_ || live_ >= max_workers_ || queue_.length() == 0) return;
  ++live_;
  workers_.start([this] { work(false); });
}

void Controller::work(bool stays) {
  pthread_setname_np(pthread_self(), name_.substr(0, 15).c_str());  // as top -H shows it
  while (true) {
    auto key = stays ? queue_.get() : queue_.get_for(kExtraWorkerIdle);
    if (!key) break;
    {
      std::lock_guard lock(mu_);
      ++busy_;
    }
    grow_if_behind();
    process(*key);
    std::lock_guard lock(mu_);
    --busy_;
  }
  std::lock_guard lock(mu_);
  --live_;
  if (!stays) workers_.ended();
}

void Controller::process(const std::string& key) {
  auto logger = log::for_role("controller-manager");
  Status s;
  try {
    s = reconcile(key);
  } catch (const std::exception& e) {
    // A malformed object must not take the process down: log it and retry with backoff.
    s = error(Code::kInternal, e.what());
  }
  if (s.is_ok()) {
    queue_.forget(key);
  } else {
    // Conflicts are the normal race with other writers: retry quietly.
    if (s.code() != Code::kConflict) {
      logger->warn("{}: {}: {}", name_, key, s.message());
    }
    queue_.add_rate_limited(key);
  }
  queue_.done(key);
}

}  // namespace k3c::controllers
