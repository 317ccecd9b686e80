// Elastic workers of a work queue (see queue_workers.h).
#include "client/queue_workers.h"
#include "core/thread_set.h"


#include <algorithm>

namespace k3c::client {

QueueWorkers::QueueWorkers(std::string name, WorkQueue& queue,
                           std::function<void(const std::string& key)> process,
                           std::chrono::milliseconds idle_life)
    : name_(std::move(name)), queue_(queue), process_(std::move(process)), idle_life_(idle_life) {}

QueueWorkers::~QueueWorkers() { stop(); }

void QueueWorkers::run(int max_workers) {
  std::lock_guard lock(mu_);
  if (stopped_ || live_ > 0) return;
  max_workers_ = std::max(1, max_workers);
  ++live_;
  workers_.start([this] { work(true); });
}

void QueueWorkers::stop() {
  queue_.shut_down();
  std::list<std::thread> joining;
  {
    std::lock_guard lock(mu_);
    stopped_ = true;
    joining = workers_.take_all();
  }
  ThreadSet::join(joining);
}

int QueueWorkers::live() const {
  std::lock_guard lock(mu_);
  return live_;
}

void QueueWorkers::grow_if_behind() {
  std::lock_guard lock(mu_);
  workers_.reap();  // the extra workers that ended: their stacks go back
  if (stopped_ || busy_ < live_ || live_ >= max_workers_) return;
  ++live_;
  workers_.start([this] { work(false); });
}

void QueueWorkers::work(bool stays) {
  name_this_thread(name_);
  while (true) {
    auto key = stays ? queue_.get() : queue_.get_for(idle_life_);
    if (!key) {
      if (stays || queue_.is_shut_down()) break;
      // Idle for idle_life: it ends, unless it is the one free worker while others are busy.
      std::lock_guard lock(mu_);
      if (stopped_ || busy_ == 0 || live_ - busy_ > 1) break;
      continue;
    }
    {
      std::lock_guard lock(mu_);
      ++busy_;
    }
    grow_if_behind();
    process_(*key);
    std::lock_guard lock(mu_);
    --busy_;
  }
  std::lock_guard lock(mu_);
  --live_;
  if (!stays) workers_.ended();
}

}  // namespace k3c::client
