// Polls a condition for up to 5 s (threads under test act on their own clock).
#pragma once

#include <chrono>
#include <thread>

namespace k3c::testing {

template <typename F>
bool eventually(F done) {
  for (int i = 0; i < 500; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return done();
}

}  // namespace k3c::testing
