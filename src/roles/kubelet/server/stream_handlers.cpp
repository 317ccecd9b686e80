// The kubelet's exec, attach and port-forward endpoints (see stream_handlers.h).
#include "roles/kubelet/server/stream_handlers.h"

#include "api/json_fields.h"
#include "core/log.h"
#include "http/text_response.h"
#include "roles/kubelet/pods/labels.h"
#include "streaming/port_forward.h"
#include "streaming/remote_command.h"

namespace k3c::kubelet {
namespace {

using nlohmann::json;

http::Response stream_text(int status, const std::string& line) {
  return http::text_response(status, line + "\n");
}

// A runtime error before the upgrade, as upstream's kubelet writes it (the runtime's code
// when there is one, else 500).
http::Response runtime_error(const Status& status) {
  int code = 500;
  if (status.code() == Code::kNotImplemented) code = 501;
  if (status.code() == Code::kNotFound) code = 404;
  if (status.code() == Code::kServiceUnavailable) code = 503;
  return stream_text(code, status.message());
}

// The id of the running instance of `container` in `pod`, from the runtime's labels.
std::optional<std::string> running_container(runtime::RuntimeService& runtime, const json& pod,
                                             const std::string& container) {
  const std::string uid = api::text(api::member(pod, "metadata"), "uid");
  auto all = runtime.list_containers();
  if (!all.is_ok()) return std::nullopt;
  const runtime::ContainerStatus* best = nullptr;
  for (const runtime::ContainerStatus& c : *all) {
    auto label = [&](const char* key) {
      auto it = c.labels.find(key);
      return it == c.labels.end() ? std::string() : it->second;
    };
    if (c.state != runtime::ContainerState::kRunning || label(labels::kPodUid) != uid ||
        label(labels::kContainerName) != container)
      continue;
    if (best == nullptr || c.attempt > best->attempt) best = &c;
  }
  if (best == nullptr) return std::nullopt;
  return best->id;
}

// Which protocol a switched request speaks, for the log.
std::string protocol_of(const http::Request& request) {
  if (auto ws = request.header("sec-websocket-protocol"))
    return "websocket (" + std::string(*ws) + ")";
  return "SPDY/3.1";
}

}  // namespace

http::Response serve_exec_or_attach(runtime::RuntimeService& runtime, const json& pod,
                                    const std::string& container, const http::Request& request,
                                    bool attach) {
  auto options = streaming::stream_options_of(request);
  if (!options.is_ok()) return stream_text(400, options.status().message());
  std::vector<std::string> command;
  for (std::string_view c : request.params("command")) command.emplace_back(c);
  if (!attach && command.empty())
    return stream_text(400, "you must specify at least one command for the container");
  if (streaming::transport_of(request) == streaming::Transport::kNone)
    return stream_text(400, "Upgrade request required");
  auto id = running_container(runtime, pod, container);
  if (!id) return stream_text(500, "container not found (\"" + container + "\")");
  auto session = attach ? runtime.attach(*id, *options) : runtime.exec(*id, command, *options);
  if (!session.is_ok()) return runtime_error(session.status());
  std::shared_ptr<runtime::StreamSession> shared = std::move(*session);
  log::for_role("kubelet")->info("{} in container {} of pod {} over {}", attach ? "attach" : "exec",
                                 container, api::text(api::member(pod, "metadata"), "name"),
                                 protocol_of(request));
  return streaming::serve_remote_command(request, {*options, std::move(command), attach},
                                         std::move(shared));
}

http::Response serve_port_forward(runtime::RuntimeService& runtime, const json& pod,
                                  const http::Request& request) {
  if (!streaming::is_port_forward_upgrade(request))
    return stream_text(400, "Upgrade request required");
  const std::string uid = api::text(api::member(pod, "metadata"), "uid");
  auto sandboxes = runtime.list_pod_sandboxes();
  if (!sandboxes.is_ok()) return runtime_error(sandboxes.status());
  std::string sandbox;
  for (const runtime::SandboxStatus& s : *sandboxes)
    if (s.config.pod_uid == uid && s.state == runtime::SandboxState::kReady) sandbox = s.id;
  if (sandbox.empty()) {
    const std::string name = api::text(api::member(pod, "metadata"), "name");
    return stream_text(500, "pod sandbox of \"" + name + "\" not found: the pod is not running");
  }
  log::for_role("kubelet")->info("port-forward to pod {} over {}",
                                 api::text(api::member(pod, "metadata"), "name"),
                                 protocol_of(request));
  streaming::PortForwardOptions options;
  options.pod = sandbox;
  // The runtime outlives the kubelet API's requests (the runtime role stops after the kubelet).
  return streaming::serve_port_forward(request, options,
                                       [&runtime, sandbox](uint16_t port) -> Result<int> {
                                         return runtime.port_forward(sandbox, port);
                                       });
}

}  // namespace k3c::kubelet
