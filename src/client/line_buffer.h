// Splits a watch's body into its lines (one JSON event each) as bytes arrive, for both
// transports' WatchLines. Not thread-safe: it belongs to the one reader of a watch.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace k3c::client {

class LineBuffer {
 public:
  void append(std::string_view bytes) { buffer_ += bytes; }
  // The next complete line (without its newline); with `at_end`, a last line without one.
  std::optional<std::string> pop(bool at_end) {
    const size_t nl = buffer_.find('\n', start_ + scanned_);
    if (nl == std::string::npos) {
      scanned_ = buffer_.size() - start_;
      if (at_end && !empty()) {
        std::string line = buffer_.substr(start_);
        reset();
        return line;
      }
      return std::nullopt;
    }
    std::string line = buffer_.substr(start_, nl - start_);
    start_ = nl + 1;
    scanned_ = 0;
    // Lines are taken from the front by moving start_; the bytes before it are dropped once
    // they are half the buffer (erasing each line as it went moved the whole rest of the
    // buffer per line: quadratic in a poll's backlog, which can be thousands of events).
    if (empty()) {
      reset();
    } else if (start_ > buffer_.size() / 2) {
      buffer_.erase(0, start_);
      start_ = 0;
    }
    return line;
  }
  bool empty() const { return start_ == buffer_.size(); }

 private:
  // A backlog (an informer's first events after a relist, say) grows the buffer to megabytes;
  // a watch lives for minutes, so such capacity is given back rather than kept.
  static constexpr size_t kKeptCapacity = 64 * 1024;

  void reset() {
    if (buffer_.capacity() > kKeptCapacity) {
      std::string().swap(buffer_);
    } else {
      buffer_.clear();
    }
    start_ = 0;
    scanned_ = 0;
  }

  std::string buffer_;
  size_t start_ = 0;    // where the next line begins
  size_t scanned_ = 0;  // bytes from start_ known to hold no newline
};

}  // namespace k3c::client
