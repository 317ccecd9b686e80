// Lifecycle hooks (see lifecycle_hooks.h).
#include "roles/kubelet/pods/lifecycle_hooks.h"

#include <cstdio>
#include <thread>

#include "core/go_format.h"
#include "roles/kubelet/pods/pod_sync.h"

namespace k3c::kubelet {

using nlohmann::json;

namespace {}  // namespace

HookOutcome run_lifecycle_hook(runtime::RuntimeService& runtime, const std::string& container_id,
                               const json& pod, const json& container, const json& handler,
                               std::chrono::seconds timeout) {
  const std::string where = " for Container \"" + container.value("name", "") + "\" in Pod \"" +
                            pod_description(pod) + "\"";
  if (handler.contains("sleep")) {
    const auto seconds = std::chrono::seconds(handler["sleep"].value("seconds", 0));
    std::this_thread::sleep_for(std::min(seconds, timeout));
    return {};
  }
  if (!handler.contains("exec")) {
    return {false, "HTTP lifecycle hook" + where +
                       " failed - error: httpGet and tcpSocket "
                       "lifecycle hooks are not implemented in k3c yet"};
  }
  std::vector<std::string> cmd;
  for (const auto& s : handler["exec"].value("command", json::array())) {
    if (s.is_string()) cmd.push_back(s.get<std::string>());
  }
  std::string list;  // Go's %v of the command, without the brackets; also the joined command
  for (const auto& s : cmd) list += (list.empty() ? "" : " ") + s;
  const std::string& joined = list;
  auto r = runtime.exec_sync(container_id, cmd, timeout);
  std::string err, output;
  if (!r.is_ok()) {
    err = r.status().message();
  } else if (r->timed_out) {
    err = "command '" + joined + "' timed out";
  } else if (r->exit_code != 0) {
    output = r->stdout_bytes + r->stderr_bytes;
    err = "command '" + joined + "' exited with " + std::to_string(r->exit_code) + ": " +
          r->stderr_bytes;
  } else {
    return {};
  }
  return {false, "Exec lifecycle hook ([" + list + "])" + where + " failed - error: " + err +
                     ", message: " + go_quote(output)};
}

}  // namespace k3c::kubelet
