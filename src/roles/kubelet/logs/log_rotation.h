// Container log rotation, as upstream's container log manager (pkg/kubelet/logs): every
// 10 s the kubelet looks at the log file of each running container; one bigger than
// container-log-max-size (10Mi) is renamed to `<log>.<YYYYmmdd-HHMMSS>` (UTC) and the
// runtime is asked to reopen the log (the shim starts a new file at the old path; when that
// fails the rename is undone, as upstream's). Before
// that, rotated files beyond container-log-max-files - 2 are removed, oldest first, so at
// most container-log-max-files files (the live one included) exist per container instance.
// Deviation: rotated files are not gzip-compressed (upstream compresses all but the newest).
//
// `kubectl logs` reads the live file only, as upstream's; a follower moves on to the new
// file when the old one was renamed away (server/container_logs.cpp).
//
// Thread-safety: one thread at a time (the kubelet's housekeeping thread, or a test).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/status.h"
#include "runtime/runtime_service.h"

namespace k3c::kubelet {

struct LogRotationPolicy {
  int64_t max_size_bytes = 10 << 20;  // container-log-max-size
  int max_files = 5;                  // container-log-max-files (at least 2)
};

class LogRotator {
 public:
  LogRotator(runtime::RuntimeService& runtime, const Clock& clock, LogRotationPolicy policy);
  LogRotator(const LogRotator&) = delete;
  LogRotator& operator=(const LogRotator&) = delete;

  // One pass over the running containers; the logs it rotated (their old paths).
  std::vector<std::string> rotate_once();


 private:
  // Rotated files of `log` ("<log>.<stamp>"), oldest first.
  static std::vector<std::string> rotated_files(const std::string& log);
  Status rotate(const std::string& id, const std::string& log);

  runtime::RuntimeService& runtime_;
  const Clock& clock_;
  const LogRotationPolicy policy_;
};

}  // namespace k3c::kubelet
