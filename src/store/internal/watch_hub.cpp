// Watch fan-out (see watch_hub.h).
#include "store/internal/watch_hub.h"

#include <algorithm>

namespace k3c::store::internal {
namespace {

bool has_prefix(const std::string& key, const std::string& prefix) {
  return key.compare(0, prefix.size(), prefix) == 0;
}

// The handle the caller holds; ends the watch when dropped.
class QueueWatcher final : public Watcher {
 public:
  explicit QueueWatcher(std::shared_ptr<WatchQueue> q) : q_(std::move(q)) {}
  ~QueueWatcher() override { cancel(); }
  Result<std::vector<Event>> next(std::chrono::milliseconds timeout) override {
    return q_->next(timeout);
  }
  void cancel() override { q_->end(error(Code::kGone, "watch cancelled")); }

 private:
  std::shared_ptr<WatchQueue> q_;
};

}  // namespace

bool WatchQueue::push(const std::vector<EventPtr>& events) {
  std::lock_guard lock(mu_);
  if (!ended_.is_ok()) return false;
  bool added = false;
  for (const auto& e : events) {
    if (e->kv.mod_revision <= after_ || !has_prefix(e->kv.key, prefix_)) continue;
    if (queue_.size() >= limit_) {
      queue_.clear();
      ended_ = error(Code::kCompacted,
                     "watch fell too far behind (more than " + std::to_string(limit_) +
                         " events waiting); start again from a newer revision",
                     e->kv.mod_revision);
      cv_.notify_all();
      return false;
    }
    queue_.push_back(e);
    added = true;
  }
  if (added) cv_.notify_all();
  return true;
}

void WatchQueue::prepend_history(std::vector<EventPtr> history) {
  std::lock_guard lock(mu_);
  if (!ended_.is_ok()) return;
  if (queue_.size() + history.size() > limit_) {
    queue_.clear();
    ended_ = error(Code::kCompacted, "too much history to replay; start from a newer revision");
  } else {
    queue_.insert(queue_.begin(), history.begin(), history.end());
  }
  cv_.notify_all();
}

void WatchQueue::end(Status why) {
  std::lock_guard lock(mu_);
  if (ended_.is_ok()) ended_ = std::move(why);
  cv_.notify_all();
}

bool WatchQueue::ended() const {
  std::lock_guard lock(mu_);
  return !ended_.is_ok();
}

Result<std::vector<Event>> WatchQueue::next(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, timeout, [&] { return !queue_.empty() || !ended_.is_ok(); });
  // Events already queued are still delivered before the end is reported, except after an
  // overflow, which cleared the queue.
  if (queue_.empty() && !ended_.is_ok()) return ended_;
  std::vector<Event> out;
  out.reserve(queue_.size());
  for (const auto& e : queue_) out.push_back(*e);
  queue_.clear();
  return out;
}

Result<std::unique_ptr<Watcher>> WatchHub::register_watcher(const std::string& prefix,
                                                            int64_t after, int64_t compacted) {
  std::shared_ptr<WatchQueue> q;
  int64_t upto = 0;
  {
    std::lock_guard lock(hub_mu_);
    if (!closed_.is_ok()) return closed_;
    if (after > 0 && after < compacted) {
      return error(Code::kCompacted,
                   "required revision " + std::to_string(after) + " has been compacted", compacted);
    }
    upto = published_;
    q = std::make_shared<WatchQueue>(prefix, after > 0 ? after : published_, queue_limit_);
    queues_.push_back(q);
  }
  // History is read outside the hub lock so commits are not held up; events committed
  // meanwhile are already queued live (they are above `upto`) and history goes before them.
  if (after > 0 && after < upto) {
    auto history = read_history_(prefix, after, upto);
    if (!history.is_ok()) {
      q->end(history.status());
      return history.status();
    }
    q->prepend_history(std::move(history).value());
  }
  return std::unique_ptr<Watcher>(std::make_unique<QueueWatcher>(q));
}

void WatchHub::publish(const std::vector<EventPtr>& events) {
  if (events.empty()) return;
  std::lock_guard lock(hub_mu_);
  published_ = events.back()->kv.mod_revision;
  // Deliver, and drop queues whose watch has ended (cancelled, overflowed).
  std::erase_if(queues_, [&](const std::shared_ptr<WatchQueue>& q) { return !q->push(events); });
}

void WatchHub::close(Status why) {
  std::lock_guard lock(hub_mu_);
  closed_ = why;
  for (auto& q : queues_) q->end(why);
  queues_.clear();
}

}  // namespace k3c::store::internal
