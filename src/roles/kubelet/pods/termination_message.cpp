// A terminated container's message (see termination_message.h).
#include "roles/kubelet/pods/termination_message.h"

#include <fstream>
#include <iterator>

#include "runtime/logs/cri_log.h"

namespace k3c::kubelet {

namespace {

constexpr size_t kMaxMessageBytes = 4096;  // upstream's MaxContainerTerminationMessageLength
constexpr int64_t kLogLines = 80;          // MaxContainerTerminationMessageLogLines
constexpr size_t kLogBytes = 2048;         // MaxContainerTerminationMessageLogLength

std::string read_at_most(const std::string& path, size_t limit) {
  std::ifstream in(path, std::ios::binary);
  std::string out(limit, '\0');
  in.read(out.data(), static_cast<std::streamsize>(limit));
  out.resize(static_cast<size_t>(std::max<std::streamsize>(0, in.gcount())));
  return out;
}

std::string log_tail(const std::string& log_path) {
  std::ifstream in(log_path, std::ios::binary);
  const std::string contents{std::istreambuf_iterator<char>(in), {}};
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
