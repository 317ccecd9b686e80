// Reading container logs in the CRI format the shims write, one record per line:
//   <RFC3339Nano timestamp> <stdout|stderr> <F|P> <content>
// (P marks a partial line continued by the next record). What `kubectl logs` asks for
// (tailLines, sinceTime/sinceSeconds, timestamps, limitBytes) is applied here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/runtime_service.h"

namespace k3c::runtime {

struct CriRecord {
  std::string_view timestamp;  // as written
  std::string_view stream;     // "stdout" or "stderr"
  bool partial = false;
  std::string_view content;  // without the newline
};

// nullopt for a line that is not a CRI record (it is skipped, as the kubelet does).
std::optional<CriRecord> parse_cri_record(std::string_view line);

struct LogOptions {
  bool follow = false;
  std::optional<int64_t> tail_lines;
  std::optional<WallTime> since;  // records before it are skipped
  bool timestamps = false;
  std::optional<int64_t> limit_bytes;
};

// Turns CRI records into the text `kubectl logs` prints. Feed it the file from the offset
// tail_offset() gives; it keeps an incomplete last line until its newline arrives.
class LogRenderer {
 public:
  explicit LogRenderer(const LogOptions& options) : options_(options) {}
  // The text for the complete records in `bytes` (appended after what came before).
  std::string feed(std::string_view bytes);
  // True once limitBytes has been reached: nothing more will be produced.
  bool exhausted() const { return exhausted_; }

 private:
  void render(std::string_view line, std::string& out);

  LogOptions options_;
  std::string pending_;  // an incomplete record
  int64_t written_ = 0;
  bool exhausted_ = false;
};

// Where the last `lines` complete log lines of `contents` begin (a line ends with an F
// record; P records belong to the line they continue). 0 when there are fewer.
size_t tail_offset(std::string_view contents, int64_t lines);

}  // namespace k3c::runtime
