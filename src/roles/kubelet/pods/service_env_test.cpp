// Service environment variables: names and values as upstream, which Services count, and how
// they meet the container's own variables.
#include "roles/kubelet/pods/service_env.h"

#include <catch2/catch.hpp>

#include "roles/kubelet/pods/container_env.h"
#include "roles/kubelet/pods/testing/map_config_source.h"

namespace k3c::kubelet {
namespace {

using nlohmann::json;

json service(const std::string& ns, const std::string& name, const std::string& ip, json ports) {
  return {{"metadata", {{"name", name}, {"namespace", ns}}},
          {"spec", {{"clusterIP", ip}, {"ports", ports}}}};
}

const std::vector<json> kServices = {
    service("default", "kubernetes", "10.43.0.1",
            {{{"name", "https"}, {"port", 443}, {"protocol", "TCP"}}}),
    service("ns", "my-svc", "10.43.0.5",
            {{{"name", "http"}, {"port", 80}, {"protocol", "TCP"}},
             {{"name", "dns"}, {"port", 53}, {"protocol", "UDP"}}}),
    service("ns", "headless", "None", {{{"port", 80}}}),
    service("other", "elsewhere", "10.43.0.9", {{{"port", 80}}})};

json env_pod(bool links = true) {
  json p = {{"metadata", {{"name", "p"}, {"namespace", "ns"}}}, {"spec", json::object()}};
  if (!links) p["spec"]["enableServiceLinks"] = false;
  return p;
}

TEST_CASE("the pod's namespace's Services and the kubernetes Service") {
  auto env = service_env(env_pod(), kServices);
  CHECK(env.at("KUBERNETES_SERVICE_HOST") == "10.43.0.1");
  CHECK(env.at("KUBERNETES_SERVICE_PORT") == "443");
  CHECK(env.at("KUBERNETES_SERVICE_PORT_HTTPS") == "443");
  CHECK(env.at("KUBERNETES_PORT") == "tcp://10.43.0.1:443");
  CHECK(env.at("KUBERNETES_PORT_443_TCP") == "tcp://10.43.0.1:443");
  CHECK(env.at("KUBERNETES_PORT_443_TCP_PROTO") == "tcp");
  CHECK(env.at("KUBERNETES_PORT_443_TCP_PORT") == "443");
  CHECK(env.at("KUBERNETES_PORT_443_TCP_ADDR") == "10.43.0.1");
  CHECK(env.at("MY_SVC_SERVICE_HOST") == "10.43.0.5");
  CHECK(env.at("MY_SVC_SERVICE_PORT") == "80");
  CHECK(env.at("MY_SVC_SERVICE_PORT_DNS") == "53");
  CHECK(env.at("MY_SVC_PORT_53_UDP") == "udp://10.43.0.5:53");
  CHECK(env.count("HEADLESS_SERVICE_HOST") == 0);
  CHECK(env.count("ELSEWHERE_SERVICE_HOST") == 0);
  // enableServiceLinks: false keeps only the kubernetes Service.
  auto only = service_env(env_pod(false), kServices);
  CHECK(only.count("KUBERNETES_SERVICE_HOST") == 1);
  CHECK(only.count("MY_SVC_SERVICE_HOST") == 0);
}

TEST_CASE("declared variables win over Service ones; $(VAR) sees both") {
  testing::MapConfigSource objects;
  json c = {{"name", "c"},
            {"env",
             {{{"name", "MY_SVC_SERVICE_PORT"}, {"value", "8080"}},
              {{"name", "URL"},
               {"value", "https://$(KUBERNETES_SERVICE_HOST):$(MY_SVC_SERVICE_PORT)"}}}}};
  json p = env_pod();
  p["spec"]["containers"] = {c};
  auto r = container_env(p, c, {}, objects, NodeFacts{}, {}, service_env(p, kServices));
  REQUIRE(r.is_ok());
  CHECK(r->declared.at("URL") == "https://10.43.0.1:8080");
  CHECK(r->declared.at("MY_SVC_SERVICE_PORT") == "8080");
  CHECK(std::count(r->env.begin(), r->env.end(), "MY_SVC_SERVICE_PORT=8080") == 1);
  CHECK(std::count(r->env.begin(), r->env.end(), "MY_SVC_SERVICE_PORT=80") == 0);
  CHECK(std::count(r->env.begin(), r->env.end(), "KUBERNETES_SERVICE_HOST=10.43.0.1") == 1);
}

}  // namespace
}  // namespace k3c::kubelet
