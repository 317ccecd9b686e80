// The kubelet API (what port 10250 serves upstream): /healthz, /pods, /containerLogs,
// /stats/summary, /metrics/resource, and the streaming endpoints /exec, /attach, /portForward
// (server/stream_handlers.h); /run and other stats paths answer 501. The API server of this
// process calls handle() directly (http::LocalEndpoints), the HTTPS server on port 10250
// (server/kubelet_server.h) too; switched connections run on the threads of the server that
// switched them: stop() ends those still open, so none outlives the runtime they use.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "http/http.h"
#include "roles/kubelet/server/stats_endpoints.h"
#include "runtime/runtime_service.h"

namespace k3c::kubelet {

struct KubeletApiSources {
  // The pod as this kubelet knows it (nullopt when it does not run it).
  std::function<std::optional<nlohmann::json>(const std::string& ns, const std::string& name)>
      find_pod;
  // Every pod bound to this node.
  std::function<std::vector<nlohmann::json>()> pods;
  runtime::RuntimeService* runtime = nullptr;
  StatsSource stats;  // /stats/summary, /metrics/resource; unset: 503
};

class KubeletApi {
 public:
  explicit KubeletApi(KubeletApiSources sources) : sources_(std::move(sources)) {}
  // Thread-safe; may return a streaming response (logs with follow) or a protocol switch
  // (exec, attach, port-forward).
  http::Response handle(const http::Request& request);
  // Closes the switched connections still open and waits (up to a few seconds) for their
  // sessions to end; later switches end at once. Thread-safe, idempotent.
  void stop();

 private:
  // The switched connections in flight (shared with their handlers, which may outlive this).
  struct Streams {
    std::mutex mu;  // guards all below
    std::condition_variable cv;
    std::set<http::Duplex*> open;
    bool stopped = false;
  };
  http::Response container_logs(const http::Request& request, const std::string& ns,
                                const std::string& pod, const std::string& container);
  http::Response stream(const http::Request& request, const std::vector<std::string>& parts);
  // Wraps an upgrade so that stop() can end it.
  http::Response tracked(http::Response response);
  KubeletApiSources sources_;
  std::shared_ptr<Streams> streams_ = std::make_shared<Streams>();
};

}  // namespace k3c::kubelet
