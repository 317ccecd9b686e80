// The shape of every controller (CONVENTIONS.md): informer handlers queue keys, workers take
// keys from a rate-limited work queue (a key is never given to two workers at once) and call
// a level-triggered reconcile(key) that compares desired with current state and acts. An
// error requeues the key with backoff; success resets it.
//
// Threads: run(n) starts one worker, which stays; more, up to n, start while keys wait and
// every worker is busy, and end after a while with nothing to do (an idle server keeps one
// thread per controller, not n). stop() shuts the queue down and joins them.
#pragma once

#include <mutex>
#include <string>

#include "client/work_queue.h"
#include "core/status.h"
#include "core/thread_set.h"

namespace k3c::controllers {

class Controller {
 public:
  explicit Controller(std::string name, const Clock& clock = SystemClock::instance())
      : name_(std::move(name)), queue_(clock) {}
  virtual ~Controller();
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  const std::string& name() const { return name_; }
  virtual Status reconcile(const std::string& key) = 0;

  void enqueue(const std::string& key) { queue_.add(key); }
  void enqueue_after(const std::string& key, client::WorkQueue::Duration delay) {
    queue_.add_after(key, delay);
  }
  void run(int workers);
  void stop();

  int live_workers() const;  // for tests

 protected:
  client::WorkQueue& queue() { return queue_; }

 private:
  void work(bool stays);
  void process(const std::string& key);
  // After a worker took a key: one more worker when keys still wait and none is free.
  void grow_if_behind();

  const std::string name_;
  client::WorkQueue queue_;
  mutable std::mutex mu_;  // guards all below
  int max_workers_ = 0, live_ = 0, busy_ = 0;
  bool stopped_ = false;
  ThreadSet workers_;  // the extra ones end on their own
};

}  // namespace k3c::controllers
