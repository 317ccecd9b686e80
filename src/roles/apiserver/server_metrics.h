// GET /metrics: the API server's metrics in the Prometheus text format, as kube-apiserver
// serves them to Prometheus and `kubectl get --raw /metrics` (system:masters only until RBAC
// lands, as upstream allows it to system:monitoring and the admins). Families, in name order:
// - apiserver_current_inflight_requests, apiserver_longrunning_requests,
//   apiserver_request_duration_seconds, apiserver_request_total (request_metrics.h);
// - apiserver_storage_objects{resource}: the objects stored per resource ("pods",
//   "deployments.apps"), counted in the datastore at each scrape (upstream counts etcd's
//   keys once a minute);
// - kubernetes_build_info: the /version document's fields as labels, value 1;
// - process_cpu_seconds_total, process_max_fds, process_open_fds,
//   process_resident_memory_bytes, process_start_time_seconds, process_virtual_memory_bytes:
//   what Go's client reports for its process, read from getrusage, getrlimit and /proc.
//
// Thread-safety: text() from any thread.
#pragma once

#include <memory>
#include <string>

#include "api/discovery.h"
#include "api/registry.h"
#include "roles/apiserver/request_metrics.h"
#include "store/store.h"

namespace k3c::apiserver {

class ServerMetrics {
 public:
  ServerMetrics(std::shared_ptr<RequestMetrics> requests, store::Store& store,
                api::VersionInfo version);
  RequestMetrics& requests() const { return *requests_; }
  // The whole document; `registry` names the resources whose objects are counted.
  std::string text(const api::ResourceRegistry& registry) const;

 private:
  std::shared_ptr<RequestMetrics> requests_;
  store::Store& store_;
  const api::VersionInfo version_;
  const double start_time_;  // process_start_time_seconds, read once (0: unknown)
};

}  // namespace k3c::apiserver
