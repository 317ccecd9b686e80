// Watch fan-out: the committer publishes each committed batch of events here, in revision
// order, and every registered watcher whose prefix matches gets them in its own bounded
// queue. A watcher whose queue overflows is ended with kCompacted ("fell too far behind")
// instead of buffering without bound.
//
// Thread-safety: publish() is called by the committer thread only; register_watcher(),
// close() and the Watchers themselves from any thread. hub_mu_ guards the watcher list and
// published_; each watcher has its own mutex for its queue.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "store/store.h"

namespace k3c::store::internal {

using EventPtr = std::shared_ptr<const Event>;

// One watch's queue, shared by the hub (producer) and the Watcher handle (consumer).
class WatchQueue {
 public:
  WatchQueue(std::string prefix, int64_t after, size_t limit)
      : prefix_(std::move(prefix)), after_(after), limit_(limit) {}

  const std::string& prefix() const { return prefix_; }
  // Appends live events (those with revision > after_); ends the watch on overflow.
  // Returns false once the watch has ended.
  bool push(const std::vector<EventPtr>& events);
  // Puts replayed history in front of the live events that arrived meanwhile.
  void prepend_history(std::vector<EventPtr> history);
  void end(Status why);
  bool ended() const;
  Result<std::vector<Event>> next(std::chrono::milliseconds timeout);

 private:
  const std::string prefix_;
  const int64_t after_;
  const size_t limit_;
  mutable std::mutex mu_;  // guards the fields below
  std::condition_variable cv_;
  std::deque<EventPtr> queue_;
  Status ended_;  // non-ok once the watch is over
};

class WatchHub {
 public:
  // Reads history in (after, upto] for a new watcher; provided by the store (it owns the
  // read connections). Returns kCompacted when that history is gone.
  using HistoryReader = std::function<Result<std::vector<EventPtr>>(const std::string& prefix,
                                                                    int64_t after, int64_t upto)>;

  WatchHub(int64_t published, size_t queue_limit, HistoryReader reader)
      : published_(published), queue_limit_(queue_limit), read_history_(std::move(reader)) {}

  // Registers a watch on `prefix` for events after `after` (0 = after the newest published
  // revision), replaying history from the store first when `after` is in the past.
  // `compacted` is the store's compacted revision, checked here for a fast answer.
  Result<std::unique_ptr<Watcher>> register_watcher(const std::string& prefix, int64_t after,
                                                    int64_t compacted);
  // Delivers one committed batch (in revision order, all above the last published one).
  void publish(const std::vector<EventPtr>& events);
  // Ends every watch with `why`; later registrations fail with it.
  void close(Status why);

 private:
  std::mutex hub_mu_;  // guards the fields below
  int64_t published_;
  std::vector<std::shared_ptr<WatchQueue>> queues_;
  Status closed_;
  const size_t queue_limit_;
  HistoryReader read_history_;
};

}  // namespace k3c::store::internal
