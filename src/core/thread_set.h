// ThreadSet: the threads of one owner (a pool, a controller) when some of them end on their own
// before the owner stops. It is not locked itself: every call is made under the owner's mutex.
// A thread that leaves its loop calls ended() as its last step under that mutex; whoever takes
// the mutex next may reap() it: the join then waits only for the thread's last instructions,
// and its stack goes back. take_all() hands every thread over, to be joined outside the mutex.
#pragma once

#include <list>
#include <string_view>
#include <thread>
#include <utility>

namespace k3c {

// Names the calling thread as `top -H`, `ps -L` and /proc/PID/task/*/comm show it (Linux keeps
// the first 15 bytes), so that a profile or a thread's CPU says which part of the process it is.
void name_this_thread(std::string_view name);

class ThreadSet {
 public:
  template <class Fn>
  void start(Fn&& fn) {
    threads_.emplace_back(std::forward<Fn>(fn));
  }
  void ended() { ended_.push_back(std::this_thread::get_id()); }  // from the ending thread
  void reap();                                        // joins the threads that called ended()
  std::list<std::thread> take_all();                  // every thread, for the owner's stop
  static void join(std::list<std::thread>& threads);  // outside the owner's mutex

 private:
  std::list<std::thread> threads_;
  std::list<std::thread::id> ended_;  // ended, not joined yet
};

}  // namespace k3c
