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
    const size_t nl = buffer_.find('\n', scanned_);
    if (nl == std::string::npos) {
      scanned_ = buffer_.size();
      if (at_end && !buffer_.empty()) {
        std::string line = std::move(buffer_);
        buffer_.clear();
        scanned_ = 0;
        return line;
      }
      return std::nullopt;
    }
    std::string line = buffer_.substr(0, nl);
    buffer_.erase(0, nl + 1);
    scanned_ = 0;
    return line;
  }
  bool empty() const { return buffer_.empty(); }

 private:
  std::string buffer_;
  size_t scanned_ = 0;  // bytes known to hold no newline
};

}  // namespace k3c::client
