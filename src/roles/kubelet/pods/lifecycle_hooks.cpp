// Lifecycle hooks (see lifecycle_hooks.h).
#include "roles/kubelet/pods/lifecycle_hooks.h"

#include <cstdio>
#include <thread>

#include "core/go_format.h"
#include "roles/kubelet/pods/pod_sync.h"

namespace k3c::kubelet {

using nlohmann::json;

namespace {

// The error of an httpGet hook; empty when the request got an answer.
std::string run_http_hook(const json& get, const json& container, std::chrono::seconds timeout,
                          const HookNetwork& net) {
  const ProbeTarget target = get.contains("host") ? ProbeTarget(get.value("host", "")) : net.pod;
  if (target.host.empty() && !target.dial)
    return "failed to find networking container: the pod has no IP";
  if (net.network == nullptr) return "no network to reach the hook from";
  std::string scheme = get.value("scheme", "HTTP");
  ProbeOutcome r = net.network->http_get(
      scheme, target, container_port(get.value("port", json()), container), get.value("path", ""),
      get.value("httpHeaders", json::array()), timeout);
  return r.http_status != 0 ? "" : r.output;
}

}  // namespace

HookOutcome run_lifecycle_hook(runtime::RuntimeService& runtime, const std::string& container_id,
                               const json& pod, const json& container, const json& handler,
                               std::chrono::seconds timeout, const HookNetwork& net) {
  const std::string where = " for Container \"" + container.value("name", "") + "\" in Pod \"" +
                            pod_description(pod) + "\"";
  if (handler.contains("sleep")) {
    const auto seconds = std::chrono::seconds(handler["sleep"].value("seconds", 0));
    std::this_thread::sleep_for(std::min(seconds, timeout));
    return {};
  }
  if (handler.contains("httpGet")) {
    const json& get = handler["httpGet"];
    const std::string err = run_http_hook(get, container, timeout, net);
    if (err.empty()) return {};
    return {false, "HTTP lifecycle hook (" + get.value("path", "") + ")" + where +
                       " failed - error: " + err};
  }
  if (!handler.contains("exec")) {
    // tcpSocket is kept in the API for compatibility only; upstream cannot run it either.
    return {false, "Cannot run handler: invalid handler: " + handler.dump()};
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
