// The kubelet API (what port 10250 serves upstream): /healthz, /pods, /containerLogs,
// /stats/summary, /metrics/resource; the streaming endpoints (exec, attach, portForward)
// answer 501 until they are built.
// The API server of this process calls handle() directly (http::LocalEndpoints).
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
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
  // Thread-safe; may return a streaming response (logs with follow).
  http::Response handle(const http::Request& request);

 private:
  http::Response container_logs(const http::Request& request, const std::string& ns,
                                const std::string& pod, const std::string& container);
  KubeletApiSources sources_;
};

}  // namespace k3c::kubelet
