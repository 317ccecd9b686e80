// A response body stream that sends what a test pushes, from any thread: the watch streams
// of fake API servers and the streaming tests of the HTTP server.
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <mutex>
#include <string>

#include "http/http.h"

namespace k3c::testing {

class PushStream : public http::BodyStream {
 public:
  void set_wake(std::function<void()> wake) override {
    std::lock_guard lock(mu_);
    wake_ = std::move(wake);
  }
  Chunk poll() override {
    std::lock_guard lock(mu_);
    Chunk c;
    while (!queue_.empty()) {
      c.append(queue_.front());
      queue_.pop_front();
    }
    c.ended = ended_;
    return c;
  }
  void cancel() override { cancelled = true; }
  // Queues `bytes` (and the end of the stream when `end`), then wakes the reader.
  void push(std::string bytes, bool end = false) {
    std::function<void()> wake;
    {
      std::lock_guard lock(mu_);
      queue_.push_back(std::move(bytes));
      ended_ = ended_ || end;
      wake = wake_;
    }
    if (wake) wake();
  }
  std::atomic<bool> cancelled{false};

 private:
  std::mutex mu_;
  std::function<void()> wake_;
  std::deque<std::string> queue_;
  bool ended_ = false;
};

}  // namespace k3c::testing
