// Container log rotation (see log_rotation.h).
#include "roles/kubelet/logs/log_rotation.h"

#include <sys/stat.h>
#include <time.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "core/log.h"

namespace k3c::kubelet {

namespace fs = std::filesystem;

namespace {

// Go's "20060102-150405" in UTC, upstream's rotation stamp.
std::string rotation_stamp(std::chrono::system_clock::time_point t) {
  const time_t seconds = std::chrono::system_clock::to_time_t(t);
  struct tm tm {};
  gmtime_r(&seconds, &tm);
  char buf[32];
  strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
  return buf;
}

bool is_stamp(std::string_view s) {
  if (s.size() != 15 || s[8] != '-') return false;
  for (size_t i = 0; i < s.size(); ++i)
    if (i != 8 && (s[i] < '0' || s[i] > '9')) return false;
  return true;
}

}  // namespace

LogRotator::LogRotator(runtime::RuntimeService& runtime, const Clock& clock,
                       LogRotationPolicy policy)
    : runtime_(runtime), clock_(clock), policy_(policy) {}

std::vector<std::string> LogRotator::rotated_files(const std::string& log) {
  std::vector<std::string> out;
  const fs::path path(log);
  const std::string prefix = path.filename().string() + ".";
  std::error_code ec;
  for (fs::directory_iterator it(path.parent_path(), ec), end; !ec && it != end;
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind(prefix, 0) == 0 && is_stamp(std::string_view(name).substr(prefix.size())))
      out.push_back(it->path().string());
  }
  std::sort(out.begin(), out.end());  // the stamps sort by time
  return out;
}

Status LogRotator::rotate(const std::string& id, const std::string& log) {
  // Room for the file rotated now and the new live one.
  std::vector<std::string> old = rotated_files(log);
  const size_t keep = static_cast<size_t>(std::max(policy_.max_files - 2, 0));
  for (size_t i = 0; i + keep < old.size(); ++i) {
    std::error_code ec;
    fs::remove(old[i], ec);
    if (ec) return error(Code::kInternal, "removing " + old[i] + ": " + ec.message());
  }
  std::string target = log + "." + rotation_stamp(clock_.wall_now());
  // Two rotations within one second (a very chatty container): never overwrite a file.
  if (fs::exists(target)) return Status::ok();
  if (::rename(log.c_str(), target.c_str()) != 0)
    return error(Code::kInternal, "renaming " + log + ": " + std::strerror(errno));
  if (Status s = runtime_.reopen_container_log(id); !s.is_ok()) {
    // As upstream: the shim still writes to the renamed file, so it becomes the log again.
    if (::rename(target.c_str(), log.c_str()) != 0)
      return error(Code::kInternal, "renaming " + target + " back: " + std::strerror(errno));
    return s;
  }
  return Status::ok();
}

std::vector<std::string> LogRotator::rotate_once() {
  std::vector<std::string> rotated;
  auto containers = runtime_.list_containers();
  if (!containers.is_ok()) return rotated;
  for (const runtime::ContainerStatus& c : *containers) {
    if (c.state != runtime::ContainerState::kRunning || c.log_path.empty()) continue;
    struct stat st {};
    if (::stat(c.log_path.c_str(), &st) != 0) continue;
    if (st.st_size <= policy_.max_size_bytes) continue;
    if (Status s = rotate(c.id, c.log_path); !s.is_ok()) {
      log::for_role("kubelet")->warn("rotating the log of container {}: {}", c.id, s.message());
      continue;
    }
    rotated.push_back(c.log_path);
  }
  return rotated;
}

}  // namespace k3c::kubelet
