// What the API server counts about the requests it serves, for /metrics (server_metrics.h),
// under upstream's metric and label names so that dashboards and alerts made for
// kube-apiserver read k3c too:
// - apiserver_request_total{verb,dry_run,group,version,resource,subresource,scope,component,
//   code}: requests answered;
// - apiserver_request_duration_seconds{the same but code}: a histogram of their time in the
//   handler with upstream's buckets (5 ms ... 60 s); a watch, a log follow or an exec counts
//   when it ends, over its whole life;
// - apiserver_current_inflight_requests{request_kind=readOnly|mutating}: the short requests
//   being handled now;
// - apiserver_longrunning_requests{verb,group,version,resource,subresource,scope,component}:
//   the watches, streams and upgraded connections open now.
// Only routes the server knows get series (a resource of the registry, or one of the fixed
// paths), so no request can add labels of its choosing: the number of series stays bounded.
//
// Thread-safety: every member from any thread; one mutex guards the series, taken once per
// request.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "api/registry.h"
#include "http/http.h"
#include "roles/apiserver/request_info.h"

namespace k3c::apiserver {

// A request's labels as upstream reports them.
struct RouteLabels {
  // LIST, GET, WATCH, POST, PUT, PATCH, APPLY (server-side apply), DELETE, DELETECOLLECTION,
  // CONNECT (exec, attach, portforward, proxy); the method for paths that are not resources.
  std::string verb;
  std::string dry_run;  // "All" or ""
  std::string group, version, resource;
  // The subresource; for paths that are not resources, the path ("/healthz", "/apis").
  std::string subresource;
  std::string scope;      // "resource" (one named object), "namespace", "cluster" or ""
  std::string component;  // "apiserver", or "" for health, version and OpenAPI paths

  auto key() const {
    return std::tie(verb, dry_run, group, version, resource, subresource, scope, component);
  }
  bool operator<(const RouteLabels& other) const { return key() < other.key(); }
};

// The labels of a request answered with `status`, or nullopt when it is not on a route the
// server knows (an unknown resource or path, a 404 outside the resources): such requests
// are not counted, so the series stay bounded.
std::optional<RouteLabels> route_labels(const http::Request& request,
                                        const std::optional<RequestInfo>& info,
                                        const api::ResourceRegistry& registry, int status);

// Held by shared_ptr: the tokens it hands out keep it alive.
class RequestMetrics : public std::enable_shared_from_this<RequestMetrics> {
 public:
  // Upstream's bucket bounds for apiserver_request_duration_seconds, in seconds.
  static const std::vector<double>& duration_buckets();

  // Marks a short request in flight until the returned token goes.
  std::shared_ptr<void> in_flight(bool mutating);
  // A request answered with `code` after `elapsed` in the handler.
  void observe(const RouteLabels& labels, int code, std::chrono::nanoseconds elapsed);
  // A long-running request that was answered with `code` and goes on: counted now, open
  // until the returned token goes, its duration observed then.
  std::shared_ptr<void> long_running(const RouteLabels& labels, int code,
                                     std::chrono::steady_clock::time_point started);

  // The four families in the text format, in name order.
  void write(std::string& out) const;

 private:
  struct Series {
    std::map<int, uint64_t> codes;  // apiserver_request_total by code
    std::vector<uint64_t> buckets;  // durations up to each bound (and above the last)
    uint64_t count = 0;
    double sum = 0;
    int64_t open = 0;           // long-running requests open now
    bool long_running = false;  // has appeared as long-running
  };
  Series& series(const RouteLabels& labels);  // with mu_ held
  void record_duration(Series& s, double seconds);

  mutable std::mutex mu_;
  std::map<RouteLabels, Series> series_;
  std::atomic<int64_t> read_only_{0};
  std::atomic<int64_t> mutating_{0};
};

}  // namespace k3c::apiserver
