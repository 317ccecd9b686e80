// In-memory Duplex pairs (see duplex.h), for tests of the protocols above the HTTPS server.
#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>

#include "http/duplex.h"

namespace k3c::http {
namespace {

using namespace std::chrono_literals;

// One direction: a bounded byte queue.
struct Channel {
  std::mutex mu;  // guards bytes, closed
  std::condition_variable cv;
  std::deque<char> bytes;
  bool closed = false;  // no more writes (EOF after the queued bytes)
};

// Both ends share the two channels; `broken` ends everything at once.
struct Shared {
  Channel a_to_b, b_to_a;
  size_t capacity;
  explicit Shared(size_t c) : capacity(c) {}
};

class PipeEnd final : public Duplex {
 public:
  PipeEnd(std::shared_ptr<Shared> shared, Channel& in, Channel& out)
      : shared_(std::move(shared)), in_(in), out_(out) {}
  ~PipeEnd() override { close(); }

  Result<size_t> read_some(char* buffer, size_t max, std::chrono::milliseconds timeout) override {
    std::unique_lock lock(in_.mu);
    if (!in_.cv.wait_for(lock, timeout, [&] { return !in_.bytes.empty() || in_.closed; }))
      return error(Code::kTimeout, "no data within the deadline");
    if (in_.bytes.empty()) {
      if (self_closed_) return error(Code::kServiceUnavailable, "the pipe is closed");
      return size_t{0};
    }
    size_t n = std::min(max, in_.bytes.size());
    std::copy_n(in_.bytes.begin(), n, buffer);
    in_.bytes.erase(in_.bytes.begin(), in_.bytes.begin() + static_cast<ptrdiff_t>(n));
    in_.cv.notify_all();
    return n;
  }

  Status write_all(std::string_view bytes) override {
    std::unique_lock lock(out_.mu);
    while (!bytes.empty()) {
      if (!out_.cv.wait_for(lock, 30s,
                            [&] { return out_.closed || out_.bytes.size() < shared_->capacity; }))
        return error(Code::kTimeout, "the peer did not read for 30 s");
      if (out_.closed) return error(Code::kServiceUnavailable, "the pipe is closed");
      size_t n = std::min(bytes.size(), shared_->capacity - out_.bytes.size());
      out_.bytes.insert(out_.bytes.end(), bytes.begin(), bytes.begin() + static_cast<ptrdiff_t>(n));
      bytes.remove_prefix(n);
      out_.cv.notify_all();
    }
    return Status::ok();
  }

  void close() override {
    for (Channel* c : {&in_, &out_}) {
      std::lock_guard lock(c->mu);
      c->closed = true;
      if (c == &in_) self_closed_ = true;
      c->cv.notify_all();
    }
  }

 private:
  std::shared_ptr<Shared> shared_;
  Channel& in_;
  Channel& out_;
  bool self_closed_ = false;  // guarded by in_.mu: reads fail rather than report EOF
};

}  // namespace

std::pair<std::unique_ptr<Duplex>, std::unique_ptr<Duplex>> make_pipe(size_t capacity) {
  auto shared = std::make_shared<Shared>(capacity);
  auto a = std::make_unique<PipeEnd>(shared, shared->b_to_a, shared->a_to_b);
  auto b = std::make_unique<PipeEnd>(shared, shared->a_to_b, shared->b_to_a);
  return {std::move(a), std::move(b)};
}

}  // namespace k3c::http
