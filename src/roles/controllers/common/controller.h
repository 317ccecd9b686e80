// The shape of every controller (CONVENTIONS.md): informer handlers queue keys, workers take
// keys from a rate-limited work queue (a key is never given to two workers at once) and call
// a level-triggered reconcile(key) that compares desired with current state and acts. An
// error requeues the key with backoff; success resets it.
//
// Threads: run() starts the workers; stop() shuts the queue down and joins them.
#pragma once

#include <string>
#include <thread>
#include <vector>

#include "client/work_queue.h"
#include "core/status.h"

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

 protected:
  client::WorkQueue& queue() { return queue_; }

 private:
  void work();

  const std::string name_;
  client::WorkQueue queue_;
  std::vector<std::thread> workers_;
};

}  // namespace k3c::controllers
