// Request counts, durations and requests open (see request_metrics.h).
#include "roles/apiserver/request_metrics.h"

#include <algorithm>

#include "core/go_format.h"
#include "core/prometheus_text.h"

namespace k3c::apiserver {
namespace {

// Labels in name order, as Go's client writes them.
std::string label_text(const RouteLabels& l, bool dry_run) {
  std::string out = "component=\"" + prometheus_escaped(l.component) + "\"";
  if (dry_run) out += ",dry_run=\"" + prometheus_escaped(l.dry_run) + "\"";
  out += ",group=\"" + prometheus_escaped(l.group) + "\"";
  out += ",resource=\"" + prometheus_escaped(l.resource) + "\"";
  out += ",scope=\"" + prometheus_escaped(l.scope) + "\"";
  out += ",subresource=\"" + prometheus_escaped(l.subresource) + "\"";
  out += ",verb=\"" + prometheus_escaped(l.verb) + "\"";
  out += ",version=\"" + prometheus_escaped(l.version) + "\"";
  return out;
}

// Upstream's verb for a resource request: the HTTP method's name, LIST/WATCH for reads of
// collections, APPLY for server-side apply, CONNECT for the streaming subresources.
std::string resource_verb(const http::Request& request, const RequestInfo& info) {
  const std::string& sub = info.subresource;
  if (sub == "exec" || sub == "attach" || sub == "portforward" || sub == "proxy") return "CONNECT";
  const std::string& v = info.verb;
  if (v == "get") return "GET";
  if (v == "list") return "LIST";
  if (v == "watch") return "WATCH";
  if (v == "create") return "POST";
  if (v == "update") return "PUT";
  if (v == "delete") return "DELETE";
  if (v == "deletecollection") return "DELETECOLLECTION";
  if (v == "patch") {
    std::string_view type = request.header("content-type").value_or("");
    type = type.substr(0, type.find(';'));
    return type == "application/apply-patch+yaml" ? "APPLY" : "PATCH";
  }
  return request.method;
}

// The fixed paths outside /api and /apis that get series (component ""); an OpenAPI v3
// group-version document counts under "/openapi/v3/".
std::optional<std::string> fixed_path(const std::string& path) {
  for (const char* p :
       {"/version", "/metrics", "/healthz", "/livez", "/readyz", "/openapi/v2", "/openapi/v3"}) {
    if (path == p) return path;
  }
  for (const char* prefix : {"/healthz/", "/livez/", "/readyz/"}) {
    if (path.rfind(prefix, 0) == 0) return path;  // a check's own path (404 when unknown)
  }
  if (path.rfind("/openapi/v3/", 0) == 0) return std::string("/openapi/v3/");
  return std::nullopt;
}

double seconds(std::chrono::nanoseconds d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

std::optional<RouteLabels> route_labels(const http::Request& request,
                                        const std::optional<RequestInfo>& info,
                                        const api::ResourceRegistry& registry, int status) {
  RouteLabels l;
  if (!info || !info->is_resource_request) {
    // Only paths that exist: a 404 could be any path a client made up.
    if (status == 404) return std::nullopt;
    l.verb = request.method;
    if (info) {
      // A discovery path that exists answers; a refusal (401, 403) may be of any path.
      if (status >= 400) return std::nullopt;
      l.subresource = request.path;  // discovery: "/api", "/apis/apps/v1"
      l.component = "apiserver";
    } else if (auto path = fixed_path(request.path)) {
      l.subresource = std::move(*path);
    } else {
      return std::nullopt;
    }
    return l;
  }
  const api::Resource* r = registry.find(info->group, info->version, info->resource);
  if (!r || (!info->subresource.empty() && !r->subresource(info->subresource))) {
    return std::nullopt;
  }
  l.verb = resource_verb(request, *info);
  for (auto v : request.params("dryRun")) {
    if (v == "All") l.dry_run = "All";
  }
  l.group = info->group;
  l.version = info->version;
  l.resource = info->resource;
  l.subresource = info->subresource;
  l.scope = !info->name.empty() || info->verb == "create" ? "resource"
            : !info->namespace_.empty()                   ? "namespace"
                                                          : "cluster";
  l.component = "apiserver";
  return l;
}

const std::vector<double>& RequestMetrics::duration_buckets() {
  static const std::vector<double> bounds{0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8,
                                          1.0,   1.25,  1.5,  2,   3,   4,   5,   6,
                                          8,     10,    15,   20,  30,  45,  60};
  return bounds;
}

std::shared_ptr<void> RequestMetrics::in_flight(bool mutating) {
  std::atomic<int64_t>& gauge = mutating ? mutating_ : read_only_;
  gauge.fetch_add(1, std::memory_order_relaxed);
  return std::shared_ptr<void>(nullptr, [self = shared_from_this(), &gauge](void*) {
    gauge.fetch_sub(1, std::memory_order_relaxed);
  });
}

RequestMetrics::Series& RequestMetrics::series(const RouteLabels& labels) {
  Series& s = series_[labels];
  if (s.buckets.empty()) s.buckets.assign(duration_buckets().size() + 1, 0);
  return s;
}

void RequestMetrics::record_duration(Series& s, double secs) {
  const auto& bounds = duration_buckets();
  s.buckets[std::lower_bound(bounds.begin(), bounds.end(), secs) - bounds.begin()]++;
  s.count++;
  s.sum += secs;
}

void RequestMetrics::observe(const RouteLabels& labels, int code,
                             std::chrono::nanoseconds elapsed) {
  std::lock_guard lock(mu_);
  Series& s = series(labels);
  s.codes[code]++;
  record_duration(s, seconds(elapsed));
}

std::shared_ptr<void> RequestMetrics::long_running(const RouteLabels& labels, int code,
                                                   std::chrono::steady_clock::time_point started) {
  {
    std::lock_guard lock(mu_);
    Series& s = series(labels);
    s.codes[code]++;
    s.open++;
    s.long_running = true;
  }
  // Series are never removed, so the labels find the same one when the request ends.
  return std::shared_ptr<void>(nullptr, [self = shared_from_this(), labels, started](void*) {
    const double secs = seconds(std::chrono::steady_clock::now() - started);
    std::lock_guard lock(self->mu_);
    Series& s = self->series(labels);
    s.open--;
    self->record_duration(s, secs);
  });
}

void RequestMetrics::write(std::string& out) const {
  std::lock_guard lock(mu_);
  prometheus_family(out, "apiserver_current_inflight_requests", "gauge",
                    "Requests being handled now, by kind (readOnly or mutating); watches and "
                    "other long-running requests are not counted here");
  out += "apiserver_current_inflight_requests{request_kind=\"mutating\"} " +
         std::to_string(mutating_.load(std::memory_order_relaxed)) + "\n";
  out += "apiserver_current_inflight_requests{request_kind=\"readOnly\"} " +
         std::to_string(read_only_.load(std::memory_order_relaxed)) + "\n";

  prometheus_family(out, "apiserver_longrunning_requests", "gauge",
                    "Long-running requests (watches, followed logs, exec, attach, port-forward) "
                    "open now, by verb, group, version, resource, subresource, scope and "
                    "component");
  for (const auto& [labels, s] : series_) {
    if (!s.long_running) continue;
    out += "apiserver_longrunning_requests{" + label_text(labels, false) + "} " +
           std::to_string(s.open) + "\n";
  }

  const auto& bounds = duration_buckets();
  prometheus_family(out, "apiserver_request_duration_seconds", "histogram",
                    "Time spent answering requests, in seconds, by verb, dry run, group, "
                    "version, resource, subresource, scope and component; a long-running "
                    "request counts when it ends");
  for (const auto& [labels, s] : series_) {
    if (s.count == 0) continue;
    const std::string l = label_text(labels, true);
    uint64_t cumulative = 0;
    for (size_t i = 0; i < bounds.size(); ++i) {
      cumulative += s.buckets[i];
      out += "apiserver_request_duration_seconds_bucket{" + l + ",le=\"" + go_float(bounds[i]) +
             "\"} " + std::to_string(cumulative) + "\n";
    }
    out += "apiserver_request_duration_seconds_bucket{" + l + ",le=\"+Inf\"} " +
           std::to_string(s.count) + "\n";
    out += "apiserver_request_duration_seconds_sum{" + l + "} " + go_float(s.sum) + "\n";
    out += "apiserver_request_duration_seconds_count{" + l + "} " + std::to_string(s.count) + "\n";
  }

  prometheus_family(out, "apiserver_request_total", "counter",
                    "Requests answered, by verb, dry run, group, version, resource, "
                    "subresource, scope, component and HTTP status code");
  for (const auto& [labels, s] : series_) {
    for (const auto& [code, n] : s.codes) {
      out += "apiserver_request_total{code=\"" + std::to_string(code) + "\"," +
             label_text(labels, true) + "} " + std::to_string(n) + "\n";
    }
  }
}

}  // namespace k3c::apiserver
