// The CRI container log format the shim writes and the kubelet reads: one record per line,
// `<RFC3339Nano timestamp> <stdout|stderr> <F|P> <content>\n`. A line longer than the
// buffer is cut into P (partial) records and ends with an F (full) record; an unterminated
// line at end of stream is written as F.
//
// Single-threaded (the shim's loop owns it). Buffers are fixed-size members: no allocation
// after construction, so the shim stays small.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace k3c::runtime {

// Go's time.RFC3339Nano in UTC: "2026-11-30T06:46:08.12345Z" (trailing zeros of the
// fraction dropped, no fraction when it is zero), as containerd stamps its log lines.
std::string rfc3339_nano(int64_t unix_nanos);

class CriLogStream {
 public:
  static constexpr size_t kMaxLine = 16 * 1024;  // containerd's default max_container_log_line_size

  // `name` is "stdout" or "stderr". Records go to `fd` (a log file opened O_APPEND, or -1 to
  // discard them).
  explicit CriLogStream(std::string_view name) : name_(name) {}

  void set_fd(int fd) { fd_ = fd; }

  // Splits `bytes` into records stamped `unix_nanos` and writes them.
  void feed(std::string_view bytes, int64_t unix_nanos);
  // End of stream: writes a pending unterminated line as F.
  void finish(int64_t unix_nanos);

 private:
  void write_record(std::string_view content, bool partial, int64_t unix_nanos);

  std::string_view name_;
  int fd_ = -1;
  size_t used_ = 0;
  char line_[kMaxLine];
};

}  // namespace k3c::runtime
