// Table tests for the endpoints rules shared by the endpoints and endpointslice controllers.
#include "roles/controllers/endpoints/endpoint_math.h"

#include <catch2/catch.hpp>

namespace k3c::controllers {
namespace {

json service(json ports, bool publish_not_ready = false) {
  return {{"metadata", {{"name", "web"}, {"namespace", "ns"}}},
          {"spec",
           {{"selector", {{"app", "web"}}},
            {"ports", ports},
            {"publishNotReadyAddresses", publish_not_ready}}}};
}

json pod(const std::string& name, const std::string& ip, bool ready, json container_ports = {}) {
  json p = {
      {"metadata", {{"name", name}, {"namespace", "ns"}, {"uid", "uid-" + name}}},
      {"spec",
       {{"nodeName", "n1"},
        {"containers", json::array({{{"name", "c"}, {"ports", container_ports}}})}}},
      {"status",
       {{"phase", "Running"},
        {"podIP", ip},
        {"conditions", json::array({{{"type", "Ready"}, {"status", ready ? "True" : "False"}}})}}}};
  if (container_ports.is_null()) p["spec"]["containers"][0].erase("ports");
  return p;
}

TEST_CASE("target ports: numbers, names looked up in the pod, the port itself") {
  json p = pod("a", "10.0.0.1", true, json::array({{{"name", "http"}, {"containerPort", 8080}}}));
  CHECK(resolve_target_port({{"port", 80}, {"targetPort", 9090}}, p) == 9090);
  CHECK(resolve_target_port({{"port", 80}, {"targetPort", "http"}}, p) == 8080);
  CHECK_FALSE(resolve_target_port({{"port", 80}, {"targetPort", "grpc"}}, p));
  CHECK(resolve_target_port({{"port", 80}}, p) == 80);
}

TEST_CASE("which pods are endpoints, ready or not") {
  json svc = service(json::array({{{"port", 80}, {"targetPort", 8080}}}));
  CHECK_FALSE(pod_endpoint(pod("a", "", true), svc, true));  // no IP yet
  json done = pod("a", "10.0.0.1", true);
  done["status"]["phase"] = "Succeeded";
  CHECK_FALSE(pod_endpoint(done, svc, true));
  json leaving = pod("a", "10.0.0.1", true);
  leaving["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  CHECK_FALSE(pod_endpoint(leaving, svc, false));
  auto e = pod_endpoint(leaving, svc, true);
  REQUIRE(e);
  CHECK(e->terminating);
  CHECK(e->serving);
  CHECK_FALSE(e->ready);
  auto unready = pod_endpoint(pod("b", "10.0.0.2", false), svc, true);
  REQUIRE(unready);
  CHECK_FALSE(unready->ready);
  auto published = pod_endpoint(pod("b", "10.0.0.2", false), service(json::array(), true), true);
  CHECK(published->ready);
  json named = pod("c", "10.0.0.3", true);
  named["spec"]["hostname"] = "c0";
  named["spec"]["subdomain"] = "web";
  CHECK(pod_endpoint(named, svc, false)->hostname == "c0");
}

TEST_CASE("Endpoints subsets group addresses by ports, sorted by IP") {
  json svc = service(json::array({{{"name", "http"}, {"port", 80}, {"targetPort", "http"}}}));
  json ports8080 = json::array({{{"name", "http"}, {"containerPort", 8080}}});
  json ports9090 = json::array({{{"name", "http"}, {"containerPort", 9090}}});
  json subsets = endpoints_subsets(
      svc, {pod("b", "10.0.0.2", true, ports8080), pod("a", "10.0.0.1", true, ports8080),
            pod("c", "10.0.0.3", false, ports8080), pod("d", "10.0.0.4", true, ports9090),
            pod("e", "10.0.0.5", true)});  // no port named http: left out
  REQUIRE(subsets.size() == 2);
  CHECK(subsets[0]["addresses"].size() == 2);
  CHECK(subsets[0]["addresses"][0]["ip"] == "10.0.0.1");
  CHECK(subsets[0]["addresses"][0]["targetRef"]["name"] == "a");
  CHECK(subsets[0]["addresses"][0]["nodeName"] == "n1");
  CHECK(subsets[0]["notReadyAddresses"][0]["ip"] == "10.0.0.3");
  CHECK(subsets[0]["ports"] ==
        json::array({{{"name", "http"}, {"port", 8080}, {"protocol", "TCP"}}}));
  CHECK(subsets[1]["addresses"][0]["ip"] == "10.0.0.4");
  CHECK(endpoints_subsets(svc, {}).empty());
}

TEST_CASE("slices: at most N endpoints each, conditions, one series per port list") {
  json svc = service(json::array({{{"port", 80}, {"targetPort", 8080}}}));
  std::vector<json> pods;
  for (int i = 0; i < 5; ++i) {
    pods.push_back(pod("p" + std::to_string(i), "10.0.0." + std::to_string(10 - i), i != 2));
  }
  auto slices = desired_slices(svc, pods, {}, 2);
  REQUIRE(slices.size() == 3);
  CHECK(slices[0].endpoints.size() == 2);
  CHECK(slices[2].endpoints.size() == 1);
  CHECK(slices[0].endpoints[0]["addresses"][0] == "10.0.0.10");  // sorted as text
  CHECK(slices[0].ports == json::array({{{"name", ""}, {"port", 8080}, {"protocol", "TCP"}}}));
  const json& unready = slices[1].endpoints[1];
  CHECK(unready["addresses"][0] == "10.0.0.8");
  CHECK(unready["conditions"] ==
        json({{"ready", false}, {"serving", false}, {"terminating", false}}));
  CHECK(desired_slices(svc, {}).empty());
}

TEST_CASE("slices: each endpoint carries its node's zone") {
  json svc = service(json::array({{{"port", 80}}}));
  auto slices = desired_slices(svc, {pod("a", "10.0.0.1", true)}, {{"n1", "zone-a"}});
  REQUIRE(slices.size() == 1);
  CHECK(slices[0].endpoints[0]["zone"] == "zone-a");
  CHECK_FALSE(desired_slices(svc, {pod("a", "10.0.0.1", true)})[0].endpoints[0].contains("zone"));
}

TEST_CASE("mirrored slices: a selector-less Service's Endpoints, per subset and family") {
  json endpoints = {{"subsets",
                     {{{"addresses",
                        {{{"ip", "10.1.0.1"}, {"hostname", "db-0"}},
                         {{"ip", "fd00::1"}},
                         {{"ip", "10.1.0.2"}, {"nodeName", "n2"}}}},
                       {"notReadyAddresses", {{{"ip", "10.1.0.3"}}}},
                       {"ports", {{{"name", "sql"}, {"port", 5432}, {"protocol", "TCP"}}}}},
                      {{"addresses", {{{"ip", "10.2.0.1"}}}}, {"ports", {{{"port", 80}}}}}}}};
  auto slices = mirrored_slices(endpoints, 2);
  REQUIRE(slices.size() == 4);  // subset 1: IPv4 x2 (3 addresses), IPv6; subset 2: IPv4
  CHECK(slices[0].address_type == "IPv4");
  CHECK(
      slices[0].endpoints ==
      json({{{"addresses", {"10.1.0.1"}}, {"conditions", {{"ready", true}}}, {"hostname", "db-0"}},
            {{"addresses", {"10.1.0.2"}}, {"conditions", {{"ready", true}}}, {"nodeName", "n2"}}}));
  CHECK(slices[1].endpoints ==
        json({{{"addresses", {"10.1.0.3"}}, {"conditions", {{"ready", false}}}}}));
  CHECK(slices[2].address_type == "IPv6");
  CHECK(slices[0].ports == json({{{"name", "sql"}, {"port", 5432}, {"protocol", "TCP"}}}));
  CHECK(slices[3].ports == json({{{"port", 80}}}));
  CHECK(mirrored_slices(json::object()).empty());
}

}  // namespace
}  // namespace k3c::controllers
