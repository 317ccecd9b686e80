// A terminated container's message (see termination_message.h).
#include "roles/kubelet/pods/termination_message.h"

#include <algorithm>
#include <fstream>

#include "runtime/logs/cri_log.h"

namespace k3c::kubelet {

namespace {

constexpr size_t kMaxMessageBytes = 4096;  // upstream's MaxContainerTerminationMessageLength
constexpr int64_t kLogLines = 80;          // MaxContainerTerminationMessageLogLines
constexpr size_t kLogBytes = 2048;         // MaxContainerTerminationMessageLogLength
// How much of the log's end is read: the last 80 records' 2048 bytes of text with their CRI
// prefixes fit in it many times over, and a rotated-size log (10 MiB) is not read whole at
// every status.
constexpr std::streamoff kLogWindow = 64 * 1024;

std::string read_at_most(const std::string& path, size_t limit) {
  std::ifstream in(path, std::ios::binary);
  std::string out(limit, '\0');
  in.read(out.data(), static_cast<std::streamsize>(limit));
  out.resize(static_cast<size_t>(std::max<std::streamsize>(0, in.gcount())));
  return out;
}

std::string log_tail(const std::string& log_path) {
  std::ifstream in(log_path, std::ios::binary | std::ios::ate);
  const std::streamoff size = in.tellg();
  if (size <= 0) return "";
  const std::streamoff start = std::max<std::streamoff>(0, size - kLogWindow);
  in.seekg(start);
  std::string contents(static_cast<size_t>(size - start), '\0');
  in.read(contents.data(), static_cast<std::streamsize>(contents.size()));
  contents.resize(static_cast<size_t>(std::max<std::streamsize>(0, in.gcount())));
  // Inside the file, the window starts mid-record: from the next whole one.
  if (start > 0) {
    const size_t newline = contents.find('\n');
    contents.erase(0, newline == std::string::npos ? contents.size() : newline + 1);
  }
  runtime::LogRenderer renderer({});
  std::string text =
      renderer.feed(std::string_view(contents).substr(runtime::tail_offset(contents, kLogLines)));
  if (text.size() > kLogBytes) text.erase(0, text.size() - kLogBytes);
  return text;
}

}  // namespace

std::string termination_message(const nlohmann::json& container,
                                const runtime::ContainerStatus& instance) {
  if (instance.state != runtime::ContainerState::kExited) return "";
  const std::string path = container.value("terminationMessagePath", "/dev/termination-log");
  std::string message;
  for (const runtime::Mount& m : instance.mounts) {
    if (!path.empty() && m.container_path == path) {
      message = read_at_most(m.host_path, kMaxMessageBytes);
      break;
    }
  }
  // A container that never ran (StartError) has no logs to fall back to, as upstream.
  const bool fallback =
      container.value("terminationMessagePolicy", "File") == "FallbackToLogsOnError" &&
      instance.exit_code != 0 && instance.reason != "StartError";
  if (message.empty() && fallback && !instance.log_path.empty())
    message = log_tail(instance.log_path);
  return message;
}

}  // namespace k3c::kubelet
