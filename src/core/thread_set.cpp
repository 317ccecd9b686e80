#include "core/thread_set.h"

#include <pthread.h>

#include <algorithm>
#include <string>

namespace k3c {

void name_this_thread(std::string_view name) {
  std::string shown(name.substr(0, 15));
  pthread_setname_np(pthread_self(), shown.c_str());
}

void ThreadSet::reap() {
  for (const std::thread::id id : ended_) {
    auto it = std::find_if(threads_.begin(), threads_.end(),
                           [&](const std::thread& t) { return t.get_id() == id; });
    if (it == threads_.end()) continue;
    it->join();
    threads_.erase(it);
  }
  ended_.clear();
}

std::list<std::thread> ThreadSet::take_all() {
  ended_.clear();
  return std::exchange(threads_, {});
}

void ThreadSet::join(std::list<std::thread>& threads) {
  for (std::thread& t : threads) {
    if (t.joinable()) t.join();
  }
}

}  // namespace k3c
