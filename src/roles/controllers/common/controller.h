// The shape of every controller (CONVENTIONS.md): informer handlers queue keys, workers take
// keys from a rate-limited work queue (a key is never given to two workers at once) and call
// a level-triggered reconcile(key) that compares desired with current state and acts. An
// error requeues the key with backoff; success resets it.
//
// Threads (client/queue_workers.h): run(n) starts one worker, which stays; more, up to n,
// start while keys wait and every worker is busy, and end after a while with nothing to do
// (an idle server keeps one thread per controller, not n). stop() shuts the queue down and
// joins them.
#pragma once

#include <mutex>
#include <string>

#include "client/queue_workers.h"
#include "client/work_queue.h"
#include "core/status.h"

namespace k3c::controllers {

class Controller {
 public:
  explicit Controller(std::string name, const Clock& clock = SystemClock::instance())
      : name_(std::move(name)),
        queue_(clock),
        workers_(name_, queue_, [this](const std::string& key) { process(key); }) {}
  virtual ~Controller();
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  const std::string& name() const { return name_; }
  virtual Status reconcile(const std::string& key) = 0;

  void enqueue(const std::string& key) { queue_.add(key); }
  void enqueue_after(const std::string& key, client::WorkQueue::Duration delay) {
    queue_.add_after(key, delay);
  }
  void run(int workers) { workers_.run(workers); }
  void stop() { workers_.stop(); }

  int live_workers() const { return workers_.live(); }  // for tests

 protected:
  client::WorkQueue& queue() { return queue_; }

 private:
  void process(const std::string& key);

  const std::string name_;
  client::WorkQueue queue_;
  client::QueueWorkers workers_;
};

}  // namespace k3c::controllers
