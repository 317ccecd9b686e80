// QoS classes and pod cgroups against upstream's rules (qos_test.go and
// helpers_linux_test.go semantics), as tables of pods.
#include "api/pod_qos.h"

#include <catch2/catch.hpp>

namespace k3c::api {
namespace {

using nlohmann::json;

// A container with the given requests and limits (JSON objects, may be empty).
json container(json requests, json limits, const char* name = "c") {
  json c = {{"name", name}, {"image", "busybox"}, {"resources", json::object()}};
  if (!requests.empty()) c["resources"]["requests"] = std::move(requests);
  if (!limits.empty()) c["resources"]["limits"] = std::move(limits);
  return c;
}

json qos_pod(json containers, json inits = json::array()) {
  json p = {{"metadata", {{"name", "p"}, {"uid", "1234-abcd"}}},
            {"spec", {{"containers", std::move(containers)}}}};
  if (!inits.empty()) p["spec"]["initContainers"] = std::move(inits);
  return p;
}

const json kNone = json::object();
json cpu_mem(const char* cpu, const char* memory) { return {{"cpu", cpu}, {"memory", memory}}; }

TEST_CASE("QoS classes follow upstream's rules") {
  struct Case {
    const char* name;
    json pod;
    QosClass want;
  };
  const json g = container(cpu_mem("1", "1Gi"), cpu_mem("1", "1Gi"));
  json sidecar = container(cpu_mem("100m", "64Mi"), cpu_mem("100m", "64Mi"), "side");
  sidecar["restartPolicy"] = "Always";
  const std::vector<Case> cases = {
      {"no resources", qos_pod({container(kNone, kNone)}), QosClass::kBestEffort},
      {"zero requests do not count", qos_pod({container({{"cpu", "0"}}, kNone)}),
       QosClass::kBestEffort},
      {"only non-compute resources",
       qos_pod({container({{"ephemeral-storage", "1Gi"}}, {{"nvidia.com/gpu", "1"}})}),
       QosClass::kBestEffort},
      {"a cpu request", qos_pod({container({{"cpu", "100m"}}, kNone)}), QosClass::kBurstable},
      {"requests equal limits", qos_pod({g}), QosClass::kGuaranteed},
      {"equal in other units",
       qos_pod({container(cpu_mem("1000m", "1024Mi"), cpu_mem("1", "1Gi"))}),
       QosClass::kGuaranteed},
      {"requests below limits", qos_pod({container(cpu_mem("500m", "1Gi"), cpu_mem("1", "1Gi"))}),
       QosClass::kBurstable},
      {"limits without (defaulted) requests", qos_pod({container(kNone, cpu_mem("1", "1Gi"))}),
       QosClass::kBurstable},
      {"only a memory limit", qos_pod({container({{"memory", "1Gi"}}, {{"memory", "1Gi"}})}),
       QosClass::kBurstable},
      {"non-compute resources are ignored",
       qos_pod({container({{"cpu", "1"}, {"memory", "1Gi"}, {"ephemeral-storage", "2Gi"}},
                          {{"cpu", "1"}, {"memory", "1Gi"}, {"example.com/dongle", "1"}})}),
       QosClass::kGuaranteed},
      {"hugepages count",
       qos_pod({container({{"cpu", "1"}, {"memory", "1Gi"}, {"hugepages-2Mi", "4Mi"}},
                          {{"cpu", "1"}, {"memory", "1Gi"}, {"hugepages-2Mi", "4Mi"}})}),
       QosClass::kGuaranteed},
      {"hugepages requested beyond the limits",
       qos_pod({container({{"cpu", "1"}, {"memory", "1Gi"}, {"hugepages-2Mi", "4Mi"}},
                          cpu_mem("1", "1Gi"))}),
       QosClass::kBurstable},
      {"one guaranteed, one best-effort container", qos_pod({g, container(kNone, kNone, "b")}),
       QosClass::kBurstable},
      {"two guaranteed containers",
       qos_pod({g, container(cpu_mem("2", "2Gi"), cpu_mem("2", "2Gi"), "d")}),
       QosClass::kGuaranteed},
      {"an init container without resources", qos_pod({g}, {container(kNone, kNone, "init")}),
       QosClass::kBurstable},
      {"a guaranteed init container",
       qos_pod({g}, {container(cpu_mem("3", "3Gi"), cpu_mem("3", "3Gi"), "init")}),
       QosClass::kGuaranteed},
      {"a guaranteed sidecar", qos_pod({g}, {sidecar}), QosClass::kGuaranteed},
      {"only an init container asks",
       qos_pod({container(kNone, kNone)}, {container({{"memory", "1Mi"}}, kNone, "i")}),
       QosClass::kBurstable},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    CHECK(qos_class_name(compute_qos_class(c.pod)) == qos_class_name(c.want));
  }
}

TEST_CASE("a stored status.qosClass wins over the spec") {
  json p = qos_pod({container(kNone, kNone)});
  CHECK(qos_class(p) == QosClass::kBestEffort);
  p["status"]["qosClass"] = "Burstable";
  CHECK(qos_class(p) == QosClass::kBurstable);
  p["status"]["qosClass"] = "Bogus";
  CHECK(qos_class(p) == QosClass::kBestEffort);
}

TEST_CASE("pod cgroups: parent by class, sums with the init container and sidecar rules") {
  SECTION("guaranteed: every limit, under kubepods") {
    PodCgroup cg =
        pod_cgroup(qos_pod({container(cpu_mem("500m", "64Mi"), cpu_mem("500m", "64Mi")),
                            container(cpu_mem("250m", "64Mi"), cpu_mem("250m", "64Mi"), "b")}));
    CHECK(cg.qos == QosClass::kGuaranteed);
    CHECK(cg.path() == "kubepods/pod1234-abcd");
    CHECK(cg.cpu_request_milli == 750);
    CHECK(cg.cpu_limit_milli == 750);
    CHECK(cg.memory_limit_bytes == 128 << 20);
  }
  SECTION("burstable: a limit only when every container sets it") {
    PodCgroup cg = pod_cgroup(qos_pod({container(cpu_mem("100m", "64Mi"), cpu_mem("1", "128Mi")),
                                       container({{"cpu", "200m"}}, {{"memory", "64Mi"}}, "b")}));
    CHECK(cg.path() == "kubepods/burstable/pod1234-abcd");
    CHECK(cg.cpu_request_milli == 300);
    CHECK(cg.cpu_limit_milli == 0);  // b has no CPU limit
    CHECK(cg.memory_limit_bytes == 192 << 20);
    // An init container without a memory limit lifts the pod's memory limit too.
    json p = qos_pod({container(cpu_mem("100m", "64Mi"), cpu_mem("1", "128Mi"))},
                     {container({{"cpu", "100m"}}, {{"cpu", "1"}}, "init")});
    CHECK(pod_cgroup(p).memory_limit_bytes == 0);
    CHECK(pod_cgroup(p).cpu_limit_milli == 1000);
  }
  SECTION("best effort: no limits, the least shares") {
    PodCgroup cg = pod_cgroup(qos_pod({container(kNone, kNone)}));
    CHECK(cg.path() == "kubepods/besteffort/pod1234-abcd");
    CHECK(cg.cpu_request_milli == 0);
    CHECK(cg.cpu_limit_milli == 0);
    CHECK(cg.memory_limit_bytes == 0);
  }
  SECTION("the largest init container wins over the app containers' sum") {
    PodCgroup cg =
        pod_cgroup(qos_pod({container(cpu_mem("500m", "64Mi"), cpu_mem("500m", "64Mi"))},
                           {container(cpu_mem("2", "1Gi"), cpu_mem("2", "1Gi"), "init")}));
    CHECK(cg.qos == QosClass::kGuaranteed);
    CHECK(cg.cpu_request_milli == 2000);
    CHECK(cg.cpu_limit_milli == 2000);
    CHECK(cg.memory_limit_bytes == 1 << 30);
  }
  SECTION("sidecars run beside the app containers and the later init containers") {
    json sidecar = container(cpu_mem("100m", "64Mi"), cpu_mem("100m", "64Mi"), "side");
    sidecar["restartPolicy"] = "Always";
    json p = qos_pod({container(cpu_mem("500m", "64Mi"), cpu_mem("500m", "64Mi"))},
                     {sidecar, container(cpu_mem("1", "64Mi"), cpu_mem("1", "64Mi"), "init")});
    PodCgroup cg = pod_cgroup(p);
    CHECK(cg.cpu_request_milli == 1100);  // init 1 + sidecar 100m > app 500m + sidecar 100m
    CHECK(cg.cpu_limit_milli == 1100);
    CHECK(cg.memory_limit_bytes == 128 << 20);
  }
  SECTION("overhead adds to the requests and to the limits that are set") {
    json p = qos_pod({container(cpu_mem("500m", "64Mi"), {{"memory", "64Mi"}})});
    p["spec"]["overhead"] = cpu_mem("250m", "32Mi");
    PodCgroup cg = pod_cgroup(p);
    CHECK(cg.cpu_request_milli == 750);
    CHECK(cg.cpu_limit_milli == 0);
    CHECK(cg.memory_limit_bytes == 96 << 20);
  }
}

TEST_CASE("the burstable tier's CPU requests sum only Burstable pods") {
  std::vector<json> pods = {
      qos_pod({container({{"cpu", "250m"}}, kNone)}),                  // Burstable
      qos_pod({container({{"cpu", "1"}, {"memory", "1Gi"}}, kNone)}),  // Burstable
      qos_pod({container(cpu_mem("2", "1Gi"), cpu_mem("2", "1Gi"))}),  // Guaranteed
      qos_pod({container(kNone, kNone)}),                              // BestEffort
  };
  auto sum = [](const std::vector<json>& list) {
    int64_t total = 0;
    for (const json& pod : list) total += burstable_cpu_request_milli(pod);
    return total;
  };
  CHECK(sum(pods) == 1250);
  pods[0]["status"]["qosClass"] = "BestEffort";  // the stored class decides
  CHECK(sum(pods) == 1000);
  CHECK(sum({}) == 0);
}

TEST_CASE("a container's own cgroup amounts") {
  ContainerCgroupAmounts a = container_cgroup_amounts(
      container({{"cpu", "250m"}, {"memory", "64Mi"}}, {{"cpu", "1.5"}, {"memory", "1Gi"}}));
  CHECK(a.cpu_request_milli == 250);
  CHECK(a.cpu_limit_milli == 1500);
  CHECK(a.memory_limit_bytes == 1 << 30);
  ContainerCgroupAmounts none = container_cgroup_amounts(container(kNone, kNone));
  CHECK(none.cpu_request_milli == 0);
  CHECK(none.cpu_limit_milli == 0);
  CHECK(none.memory_limit_bytes == 0);
}

}  // namespace
}  // namespace k3c::api
