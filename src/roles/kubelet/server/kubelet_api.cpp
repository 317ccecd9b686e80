// The kubelet API's dispatch (see kubelet_api.h).
#include "roles/kubelet/server/kubelet_api.h"

#include "api/json_fields.h"
#include "roles/kubelet/server/container_logs.h"
#include "http/text_response.h"
#include "roles/kubelet/server/stream_handlers.h"

namespace k3c::kubelet {
namespace {

using nlohmann::json;

http::Response text(int status, std::string body) {
  return http::text_response(status, std::move(body));
}

std::vector<std::string> segments(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 1;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    parts.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

bool has_container(const json& pod, const std::string& name) {
  const json& spec = api::member(pod, "spec");
  for (const char* list : {"containers", "initContainers", "ephemeralContainers"})
    for (const json& c : api::member(spec, list))
      if (api::text(c, "name") == name) return true;
  return false;
}

}  // namespace

http::Response KubeletApi::handle(const http::Request& request) {
  const std::vector<std::string> parts = segments(request.path);
  const std::string first = parts.empty() ? "" : parts[0];
  if (request.method != "GET" && first != "exec" && first != "attach" && first != "portForward")
    return text(405, "method not allowed\n");
  if (first == "healthz" && parts.size() == 1) return text(200, "ok");
  if (first == "pods" && parts.size() == 1) {
    json list = {{"kind", "PodList"},
                 {"apiVersion", "v1"},
                 {"metadata", json::object()},
                 {"items", json::array()}};
    for (json& pod : sources_.pods()) list["items"].push_back(std::move(pod));
    http::Response r = text(200, list.dump());
    r.set_header("Content-Type", "application/json");
    return r;
  }
  if (first == "containerLogs" && parts.size() == 4)
    return container_logs(request, parts[1], parts[2], parts[3]);
  if (request.path == "/stats/summary") return stats_summary_response(sources_.stats);
  if (request.path == "/metrics/resource") return resource_metrics_response(sources_.stats);
  if (first == "exec" || first == "attach" || first == "portForward") {
    if (request.method != "GET" && request.method != "POST")
      return text(405, "method not allowed\n");
    return stream(request, parts);
  }
  for (const char* later : {"run", "stats", "metrics"}) {
    if (first == later)
      return text(501, "/" + first + " is not implemented yet by the k3c kubelet\n");
  }
  return text(404, "404 page not found\n");
}

http::Response KubeletApi::container_logs(const http::Request& request, const std::string& ns,
                                          const std::string& pod_name,
                                          const std::string& container) {
  std::optional<json> pod = sources_.find_pod(ns, pod_name);
  if (!pod) return text(404, "pod \"" + pod_name + "\" does not exist\n");
  if (!has_container(*pod, container))
    return text(404, "container \"" + container + "\" not found in pod \"" + pod_name + "\"\n");
  auto options = log_options_of(request);
  if (!options.is_ok()) return text(400, options.status().message());
  const bool previous = request.param("previous") == "true";
  auto id = log_container_id(*pod, container, previous);
  if (!id.is_ok()) return text(400, id.status().message());
  if (sources_.runtime == nullptr) return text(503, "the container runtime is not running\n");
  return container_log_response(*sources_.runtime, *id, *options);
}

// /exec|attach/<ns>/<pod>[/<uid>]/<container> and /portForward/<ns>/<pod>[/<uid>].
http::Response KubeletApi::stream(const http::Request& request,
                                  const std::vector<std::string>& parts) {
  const bool port_forward = parts[0] == "portForward";
  const size_t plain = port_forward ? 3 : 4;
  if (parts.size() != plain && parts.size() != plain + 1) return text(404, "404 page not found\n");
  std::optional<json> pod = sources_.find_pod(parts[1], parts[2]);
  if (!pod) return text(404, "pod does not exist\n");
  if (parts.size() == plain + 1 && api::text(api::member(*pod, "metadata"), "uid") != parts[3])
    return text(404, "pod does not exist\n");
  if (sources_.runtime == nullptr) return text(503, "the container runtime is not running\n");
  if (port_forward) return tracked(serve_port_forward(*sources_.runtime, *pod, request));
  const std::string& container = parts.back();
  if (!has_container(*pod, container))
    return text(404, "container \"" + container + "\" not found in pod \"" + parts[2] + "\"\n");
  return tracked(
      serve_exec_or_attach(*sources_.runtime, *pod, container, request, parts[0] == "attach"));
}

http::Response KubeletApi::tracked(http::Response response) {
  if (!response.upgrade) return response;
  response.upgrade = [inner = std::move(response.upgrade), streams = streams_](http::Duplex& io) {
    {
      std::lock_guard lock(streams->mu);
      if (streams->stopped) return;
      streams->open.insert(&io);
    }
    inner(io);
    std::lock_guard lock(streams->mu);
    streams->open.erase(&io);
    streams->cv.notify_all();
  };
  return response;
}

void KubeletApi::stop() {
  std::unique_lock lock(streams_->mu);
  streams_->stopped = true;
  for (http::Duplex* io : streams_->open) io->close();  // the sessions see the client gone
  streams_->cv.wait_for(lock, std::chrono::seconds(5), [&] { return streams_->open.empty(); });
}

}  // namespace k3c::kubelet
