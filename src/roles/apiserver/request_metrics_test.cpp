#include "roles/apiserver/request_metrics.h"

#include <catch2/catch.hpp>

#include "request_to.h"

namespace k3c::apiserver {
namespace {

using namespace std::chrono_literals;

std::optional<RouteLabels> labels_of(std::string method, std::string target, int status = 200,
                                     std::string content_type = "") {
  static const api::ResourceRegistry registry = api::ResourceRegistry::builtin().value();
  auto r = testing::request_to(std::move(method), std::move(target));
  if (!content_type.empty()) r.headers.emplace_back("content-type", content_type);
  return route_labels(r, parse_request_info(r), registry, status);
}

TEST_CASE("requests get upstream's verb, scope and path labels") {
  auto list = labels_of("GET", "/api/v1/namespaces/default/pods");
  REQUIRE(list);
  CHECK(list->verb == "LIST");
  CHECK(list->resource == "pods");
  CHECK(list->version == "v1");
  CHECK(list->scope == "namespace");
  CHECK(list->component == "apiserver");

  CHECK(labels_of("GET", "/apis/apps/v1/deployments?watch=true")->verb == "WATCH");
  CHECK(labels_of("GET", "/apis/apps/v1/deployments")->scope == "cluster");
  auto create = labels_of("POST", "/apis/apps/v1/namespaces/a/deployments?dryRun=All", 201);
  CHECK(create->verb == "POST");
  CHECK(create->scope == "resource");
  CHECK(create->dry_run == "All");
  CHECK(create->group == "apps");
  CHECK(labels_of("PATCH", "/api/v1/nodes/n1", 200, "application/apply-patch+yaml")->verb ==
        "APPLY");
  CHECK(labels_of("PATCH", "/api/v1/nodes/n1", 200, "application/merge-patch+json")->verb ==
        "PATCH");
  auto status = labels_of("PUT", "/api/v1/namespaces/a/pods/p/status");
  CHECK(status->verb == "PUT");
  CHECK(status->subresource == "status");
  CHECK(status->scope == "resource");
  CHECK(labels_of("GET", "/api/v1/namespaces/a/pods/p/exec")->verb == "CONNECT");
  CHECK(labels_of("DELETE", "/api/v1/namespaces/a/configmaps")->verb == "DELETECOLLECTION");

  auto health = labels_of("GET", "/readyz");
  CHECK(health->subresource == "/readyz");
  CHECK(health->component.empty());
  CHECK(labels_of("GET", "/openapi/v3/apis/apps/v1")->subresource == "/openapi/v3/");
  auto discovery = labels_of("GET", "/apis/apps/v1");
  CHECK(discovery->subresource == "/apis/apps/v1");
  CHECK(discovery->component == "apiserver");
}

TEST_CASE("requests a client can make up get no series") {
  CHECK_FALSE(labels_of("GET", "/api/v1/namespaces/a/widgets"));          // no such resource
  CHECK_FALSE(labels_of("GET", "/api/v1/namespaces/a/pods/p/nonsense"));  // no such subresource
  CHECK_FALSE(labels_of("GET", "/apis/made.up/v1", 404));
  CHECK_FALSE(labels_of("GET", "/apis/made.up/v1", 403));
  CHECK_FALSE(labels_of("GET", "/some/path", 404));
  CHECK_FALSE(labels_of("GET", "/some/path", 401));
  CHECK_FALSE(labels_of("GET", "/healthz/no-such-check", 404));
  CHECK(labels_of("GET", "/metrics", 401));  // a fixed path: one series per code
}

TEST_CASE("counts, histograms and open long-running requests in the text format") {
  auto metrics = std::make_shared<RequestMetrics>();
  RouteLabels get{"GET", "", "", "v1", "configmaps", "", "resource", "apiserver"};
  metrics->observe(get, 200, 3ms);
  metrics->observe(get, 200, 30ms);
  metrics->observe(get, 404, 70s);
  RouteLabels watch{"WATCH", "", "", "v1", "pods", "", "namespace", "apiserver"};
  auto open = metrics->long_running(watch, 200, std::chrono::steady_clock::now());
  auto busy = metrics->in_flight(true);

  std::string text;
  metrics->write(text);
  const std::string l =
      "component=\"apiserver\",dry_run=\"\",group=\"\",resource=\"configmaps\","
      "scope=\"resource\",subresource=\"\",verb=\"GET\",version=\"v1\"";
  CHECK(text.find("apiserver_request_total{code=\"200\"," + l + "} 2\n") != std::string::npos);
  CHECK(text.find("apiserver_request_total{code=\"404\"," + l + "} 1\n") != std::string::npos);
  CHECK(text.find("apiserver_request_duration_seconds_bucket{" + l + ",le=\"0.005\"} 1\n") !=
        std::string::npos);
  CHECK(text.find("apiserver_request_duration_seconds_bucket{" + l + ",le=\"0.05\"} 2\n") !=
        std::string::npos);
  CHECK(text.find("apiserver_request_duration_seconds_bucket{" + l + ",le=\"60\"} 2\n") !=
        std::string::npos);
  CHECK(text.find("apiserver_request_duration_seconds_bucket{" + l + ",le=\"+Inf\"} 3\n") !=
        std::string::npos);
  CHECK(text.find("apiserver_request_duration_seconds_count{" + l + "} 3\n") != std::string::npos);
  CHECK(text.find("apiserver_request_duration_seconds_sum{" + l + "} 70.033\n") !=
        std::string::npos);
  CHECK(text.find("apiserver_current_inflight_requests{request_kind=\"mutating\"} 1\n") !=
        std::string::npos);
  const std::string w =
      "component=\"apiserver\",group=\"\",resource=\"pods\",scope=\"namespace\","
      "subresource=\"\",verb=\"WATCH\",version=\"v1\"";
  CHECK(text.find("apiserver_longrunning_requests{" + w + "} 1\n") != std::string::npos);
  CHECK(
      text.find("apiserver_request_total{code=\"200\"," +
                std::string("component=\"apiserver\",dry_run=\"\",group=\"\",resource=\"pods\"")) !=
      std::string::npos);
  // A watch's duration is observed when it ends.
  CHECK(text.find("apiserver_request_duration_seconds_count{component=\"apiserver\",dry_run=\"\","
                  "group=\"\",resource=\"pods\"") == std::string::npos);

  open.reset();
  busy.reset();
  text.clear();
  metrics->write(text);
  CHECK(text.find("apiserver_longrunning_requests{" + w + "} 0\n") != std::string::npos);
  CHECK(text.find("apiserver_current_inflight_requests{request_kind=\"mutating\"} 0\n") !=
        std::string::npos);
  CHECK(text.find("apiserver_request_duration_seconds_count{component=\"apiserver\",dry_run=\"\","
                  "group=\"\",resource=\"pods\"") != std::string::npos);
  // Families come in name order, each with its HELP and TYPE.
  const auto at = [&](const char* family) { return text.find(std::string("# TYPE ") + family); };
  CHECK(at("apiserver_current_inflight_requests") < at("apiserver_longrunning_requests"));
  CHECK(at("apiserver_longrunning_requests") < at("apiserver_request_duration_seconds"));
  CHECK(at("apiserver_request_duration_seconds") < at("apiserver_request_total"));
  CHECK(at("apiserver_request_total") != std::string::npos);
}

}  // namespace
}  // namespace k3c::apiserver
