// pods/exec, pods/attach and pods/portforward: checks the pod and the container as upstream's
// pod REST does (streamLocation, PortForwardLocation), then hands the request, upgrade
// headers and all, to the kubelet of the pod's node (/exec/<ns>/<pod>/<container>?command=..
// &input=1.., /attach/.., /portForward/<ns>/<pod>) and passes its answer back as it is: a
// 101 whose switched connection the kubelet's protocol code serves, or the kubelet's error
// text (which kubectl prints after "unable to upgrade connection: "). The kubelet of this
// process is reached in-process (http/local_endpoints.h), as for pods/log.
#include <algorithm>

#include "api/json_fields.h"
#include "core/text.h"
#include "roles/apiserver/actions.h"
#include "roles/apiserver/content.h"
#include "roles/apiserver/remote_kubelet.h"

namespace k3c::apiserver {
namespace {

using nlohmann::json;

std::vector<std::string> names_of(const json& spec, const char* list) {
  std::vector<std::string> names;
  const json& containers = api::member(spec, list);
  if (!containers.is_array()) return names;
  for (const json& c : containers)
    if (c.is_object()) names.push_back(c.value("name", ""));
  return names;
}

// The container the request names, or the only one (upstream validateContainer).
ApiResult<std::string> stream_container(const Call& c, const json& pod) {
  const json& spec = api::member(pod, "spec");
  std::string name(c.request.param("container").value_or(""));
  if (!name.empty()) {
    bool known = false;
    for (const char* list : {"containers", "initContainers", "ephemeralContainers"}) {
      auto names = names_of(spec, list);
      known = known || std::find(names.begin(), names.end(), name) != names.end();
    }
    if (!known) return bad_request("container " + name + " is not valid for pod " + c.info.name);
    return name;
  }
  std::vector<std::string> containers = names_of(spec, "containers");
  if (containers.size() == 1) return containers[0];
  if (containers.empty())
    return bad_request("a container name must be specified for pod " + c.info.name);
  std::string message = "a container name must be specified for pod " + c.info.name +
                        ", choose one of: [" + join(containers, " ") + "]";
  std::vector<std::string> init = names_of(spec, "initContainers");
  if (!init.empty()) message += " or one of the init containers: [" + join(init, " ") + "]";
  return bad_request(message);
}

// The kubelet's query: PodExecOptions / PodAttachOptions as upstream's streamParams writes
// them (stdin -> input=1, stdout -> output=1, stderr -> error=1, tty=1, command=...).
void stream_params(const http::Request& in, http::Request& out, bool exec) {
  auto yes = [&](const char* name) {
    auto v = in.param(name);
    return v && (*v == "true" || *v == "1");
  };
  const std::pair<const char*, const char*> flags[] = {
      {"stdin", "input"}, {"stdout", "output"}, {"stderr", "error"}, {"tty", "tty"}};
  for (const auto& [from, to] : flags)
    if (yes(from)) out.query.emplace_back(to, "1");
  if (exec)
    for (std::string_view cmd : in.params("command"))
      out.query.emplace_back("command", std::string(cmd));
}

}  // namespace

http::Response Actions::pod_stream(const Call& c) {
  const std::string& sub = c.info.subresource;
  auto current = read_pod(c);
  if (!current.ok()) return error_response(current.error());
  const json& pod = current.value();
  http::Request forward;
  forward.method = c.request.method;
  if (sub == "portforward") {
    forward.path = "/portForward/" + c.info.namespace_ + "/" + c.info.name;
  } else {
    auto container = stream_container(c, pod);
    if (!container.ok()) return error_response(container.error());
    if (sub == "exec" && c.request.params("command").empty())
      return error_response(bad_request("you must specify at least one command for the container"));
    forward.path =
        "/" + sub + "/" + c.info.namespace_ + "/" + c.info.name + "/" + container.value();
    stream_params(c.request, forward, sub == "exec");
  }
  const std::string node = api::text(api::member(pod, "spec"), "nodeName");
  if (node.empty())
    return error_response(bad_request("pod " + c.info.name + " does not have a host assigned"));
  auto kubelet = kubelet_of(node);
  if (!kubelet.ok()) return error_response(kubelet.error());
  forward.target = forward.path;  // informational: handlers read path and query
  // The upgrade headers (Connection, Upgrade, Sec-WebSocket-*, X-Stream-Protocol-Version)
  // go through; the client's credentials stay here, as upstream's proxy drops them.
  forward.headers = forwarded_headers(c.request);
  forward.peer = c.request.peer;
  forward.remote_address = c.request.remote_address;
  return kubelet.value()(forward);
}

}  // namespace k3c::apiserver
