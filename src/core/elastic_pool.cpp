#include "core/elastic_pool.h"
#include "core/thread_set.h"


#include <algorithm>

namespace k3c {

ElasticPool::ElasticPool(std::string name, size_t max_threads, std::chrono::milliseconds idle_life)
    : name_(name.substr(0, 15)),
      max_threads_(std::max<size_t>(1, max_threads)),
      idle_life_(idle_life) {}

ElasticPool::~ElasticPool() { stop(); }

bool ElasticPool::submit(std::function<void()> task) {
  std::lock_guard lock(mu_);
  if (stopping_) return false;
  tasks_.push_back(std::move(task));
  // An idle thread takes it; otherwise a new one, unless the pool is at its maximum.
  if (idle_ >= tasks_.size()) {
    cv_.notify_one();
    return true;
  }
  threads_.reap();
  if (alive_ < max_threads_) {
    ++alive_;
    threads_.start([this] { run(); });
  }
  return true;
}

void ElasticPool::run() {
  name_this_thread(name_);
  std::unique_lock lock(mu_);
  while (true) {
    if (tasks_.empty()) {
      if (stopping_) break;
      ++idle_;
      const bool woke =
          cv_.wait_for(lock, idle_life_, [&] { return stopping_ || !tasks_.empty(); });
      --idle_;
      if (!woke) break;  // idle for idle_life: end
      continue;
    }
    std::function<void()> task = std::move(tasks_.front());
    tasks_.pop_front();
    lock.unlock();
    task();
    task = nullptr;  // whatever it holds goes on this thread, outside the lock
    lock.lock();
  }
  --alive_;
  threads_.ended();
}

void ElasticPool::stop() {
  std::list<std::thread> joining;
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    cv_.notify_all();
    joining = threads_.take_all();
  }
  ThreadSet::join(joining);
}

size_t ElasticPool::threads() const {
  std::lock_guard lock(mu_);
  return alive_;
}

}  // namespace k3c
