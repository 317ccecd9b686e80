// Runs bindings off the scheduling thread, as upstream's binding cycle runs in a goroutine of
// its own: the scheduling cycle assumes a pod on its node and hands the rest (the binding
// POST, a durable store write, and its outcome) to the binder, so that deciding the next pod
// does not wait for this one's fsync. Concurrent bindings share the store's group commits.
//
// Bounded: `threads` bindings run at once and at most `max_waiting` more wait; past that
// submit() blocks (the scheduling thread slows to the pace of the writes).
//
// Threads: submit() from any thread; stop() (also the destructor) drops what still waits,
// lets the running bindings finish and joins the threads.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace k3c::scheduler {

class Binder {
 public:
  Binder(int threads, size_t max_waiting);
  ~Binder();
  Binder(const Binder&) = delete;
  Binder& operator=(const Binder&) = delete;

  // False (and `binding` not run) once stopping.
  bool submit(std::function<void()> binding);
  void stop();

 private:
  void run();

  const size_t max_waiting_;
  std::mutex mu_;  // guards waiting_ and stopping_
  std::condition_variable work_cv_, room_cv_;
  std::deque<std::function<void()>> waiting_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace k3c::scheduler
