// A bounded pool of binding threads (see binder.h).
#include "roles/scheduler/role/binder.h"

#include "core/thread_set.h"

namespace k3c::scheduler {

Binder::Binder(int threads, size_t max_waiting) : max_waiting_(max_waiting) {
  for (int i = 0; i < threads; ++i)
    threads_.emplace_back([this] {
      name_this_thread("binder");
      run();
    });
}

Binder::~Binder() { stop(); }

bool Binder::submit(std::function<void()> binding) {
  std::unique_lock lock(mu_);
  room_cv_.wait(lock, [&] { return stopping_ || waiting_.size() < max_waiting_; });
  if (stopping_) return false;
  waiting_.push_back(std::move(binding));
  work_cv_.notify_one();
  return true;
}

void Binder::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    // Dropped bindings leave their pods pending: the next scheduler (after a restart or a
    // change of leader) places them again.
    waiting_.clear();
  }
  work_cv_.notify_all();
  room_cv_.notify_all();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
}

void Binder::run() {
  for (;;) {
    std::function<void()> binding;
    {
      std::unique_lock lock(mu_);
      work_cv_.wait(lock, [&] { return stopping_ || !waiting_.empty(); });
      if (stopping_) return;
      binding = std::move(waiting_.front());
      waiting_.pop_front();
    }
    room_cv_.notify_one();
    binding();
  }
}

}  // namespace k3c::scheduler
