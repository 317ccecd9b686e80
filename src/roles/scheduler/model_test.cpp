// Parsing Nodes and Pods into the scheduler's model; NodeInfo and Snapshot upkeep.
#include <catch2/catch.hpp>

#include "roles/scheduler/scheduler.h"
#include "roles/scheduler/test_builders.h"

namespace k3c::scheduler {
namespace {

using testing::NodeBuilder;
using testing::PodBuilder;
using json = nlohmann::json;

TEST_CASE("node: allocatable, taints, labels, images, readiness") {
  NodePtr n = NodeBuilder("n1")
                  .allocatable("cpu", "3500m")
                  .allocatable("nvidia.com/gpu", "2")
                  .taint("dedicated", "gpu", "NoSchedule")
                  .image("nginx", 100)
                  .image("docker.io/library/redis:7", 200)
                  .build();
  CHECK(n->name == "n1");
  CHECK(n->allocatable.milli_cpu == 3500);
  CHECK(n->allocatable.memory == 8LL << 30);
  CHECK(n->allocatable.pods == 110);
  CHECK(n->allocatable.scalar_value("nvidia.com/gpu") == 2);
  REQUIRE(n->taints.size() == 1);
  CHECK(n->taints[0].effect == TaintEffect::kNoSchedule);
  CHECK(n->ready);
  REQUIRE(n->images.size() == 2);
  CHECK(n->images[0].name == "docker.io/library/redis:7");
  CHECK(n->images[1].name == "nginx:latest");
  CHECK_FALSE(node_from_json(json::array()).is_ok());
  CHECK_FALSE(node_from_json(json{{"metadata", json::object()}}).is_ok());
}

TEST_CASE("pod: effective request follows upstream's init container and sidecar rule") {
  struct Case {
    const char* name;
    json spec;
    int64_t cpu;
    int64_t memory;
  };
  auto c = [](const char* cpu, const char* mem, const char* restart = nullptr) {
    json r = {{"name", "x"},
              {"image", "i"},
              {"resources", {{"requests", {{"cpu", cpu}, {"memory", mem}}}}}};
    if (restart) r["restartPolicy"] = restart;
    return r;
  };
  std::vector<Case> cases = {
      {"app containers add up",
       {{"containers", {c("1", "1Gi"), c("500m", "1Gi")}}},
       1500,
       2LL << 30},
      {"init container larger than the sum wins per resource",
       {{"containers", {c("1", "1Gi")}}, {"initContainers", {c("2", "512Mi")}}},
       2000,
       1LL << 30},
      {"sidecars run with the app and under later init containers",
       {{"containers", {c("1", "1Gi")}},
        {"initContainers", {c("500m", "100Mi", "Always"), c("2", "100Mi")}}},
       2500,
       (1LL << 30) + (100LL << 20)},
      {"overhead is added",
       {{"containers", {c("1", "1Gi")}}, {"overhead", {{"cpu", "250m"}, {"memory", "64Mi"}}}},
       1250,
       (1LL << 30) + (64LL << 20)},
  };
  for (const Case& k : cases) {
    SECTION(k.name) {
      json pod = {{"metadata", {{"name", "p"}}}, {"spec", k.spec}};
      PodPtr p = *pod_from_json(pod);
      CHECK(p->request.milli_cpu == k.cpu);
      CHECK(p->request.memory == k.memory);
    }
  }
}

TEST_CASE("pod: scoring uses 100m / 200Mi for containers that request nothing") {
  PodPtr p = PodBuilder("p").build();
  CHECK(p->request.empty());
  CHECK(p->non_zero_request.milli_cpu == 100);
  CHECK(p->non_zero_request.memory == 200LL << 20);
  PodPtr q = PodBuilder("q").request("cpu", "1").build();
  CHECK(q->non_zero_request.milli_cpu == 1000);
  CHECK(q->non_zero_request.memory == 200LL << 20);
}

TEST_CASE("pod: fields the plugins read") {
  PodPtr p =
      PodBuilder("web", "shop")
          .label("app", "web")
          .priority(1000)
          .host_port(8080)
          .image("nginx")
          .spec("preemptionPolicy", "Never")
          .spec("nodeSelector", {{"disk", "ssd"}})
          .spec("tolerations", {{{"key", "k"}, {"operator", "Exists"}}})
          .spec("volumes", {{{"name", "data"}, {"persistentVolumeClaim", {{"claimName", "data"}}}}})
          .spec("affinity", {{"podAntiAffinity",
                              {{"requiredDuringSchedulingIgnoredDuringExecution",
                                {{{"labelSelector", {{"matchLabels", {{"app", "web"}}}}},
                                  {"topologyKey", "kubernetes.io/hostname"}}}}}}})
          .build();
  CHECK(p->key() == "shop/web");
  CHECK(p->priority == 1000);
  CHECK(p->preempt_never);
  CHECK(p->scheduler_name == "default-scheduler");
  REQUIRE(p->host_ports.size() == 1);
  CHECK(p->host_ports[0].ip == "0.0.0.0");
  CHECK(p->host_ports[0].protocol == "TCP");
  CHECK(p->images == std::vector<std::string>{"nginx:latest"});
  CHECK(p->node_selector.at("disk") == "ssd");
  CHECK(p->tolerations.size() == 1);
  CHECK(p->pvc_names == std::vector<std::string>{"data"});
  REQUIRE(p->required_anti_affinity.size() == 1);
  // A term without namespaces applies to the pod's own namespace.
  CHECK(p->required_anti_affinity[0].namespaces == std::vector<std::string>{"shop"});
  CHECK(p->has_affinity());
}

TEST_CASE("malformed parts are skipped, never thrown") {
  // Every field with a wrong type: the apiserver validates before objects get here, but the
  // parser must not throw on what it is given.
  json pod = json::parse(R"({
    "metadata": {"name": "p", "namespace": 7, "labels": ["a"], "deletionTimestamp": 1},
    "spec": {"priority": "high", "nodeSelector": "x", "tolerations": {"key": 1},
             "containers": [1, {"image": 2, "ports": "80", "resources": {"requests": [1]}}],
             "initContainers": "none", "overhead": {"cpu": "lots"},
             "affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
                            [{"labelSelector": {"matchLabels": "app", "matchExpressions": 3}}]},
                          "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
                            {"nodeSelectorTerms": [{"matchExpressions": [{"key": "k",
                              "operator": "Sometimes"}]}]}}},
             "topologySpreadConstraints": [{"maxSkew": "one", "labelSelector": []}],
             "volumes": [{"persistentVolumeClaim": "c"}]}})");
  Result<PodPtr> p = pod_from_json(pod);
  REQUIRE(p.is_ok());
  CHECK((*p)->namespace_ == "default");
  CHECK((*p)->request.empty());
  json node = json::parse(R"({"metadata": {"name": "n", "labels": 3},
    "spec": {"taints": [1, {"key": 2}], "unschedulable": "yes"},
    "status": {"allocatable": ["cpu"], "images": [{"names": "x", "sizeBytes": "big"}, 4],
               "conditions": "Ready"}})");
  Result<NodePtr> n = node_from_json(node);
  REQUIRE(n.is_ok());
  CHECK_FALSE((*n)->unschedulable);
  CHECK_FALSE((*n)->ready);
}

TEST_CASE("NodeInfo and Snapshot follow pods and nodes one at a time") {
  Snapshot s;
  s.add_node(NodeBuilder("a").image("nginx:1", 10).build());
  s.add_node(NodeBuilder("b").image("nginx:1", 10).build());
  CHECK(s.image_node_count("nginx:1") == 2);
  PodPtr p = PodBuilder("p").node("a").request("cpu", "1").host_port(80).build();
  REQUIRE(s.add_pod(p).is_ok());
  CHECK(s.find("a")->requested().milli_cpu == 1000);
  CHECK(s.find("a")->used_ports().size() == 1);
  CHECK(s.add_pod(PodBuilder("q").node("nowhere").build()).code() == Code::kNotFound);
  // Replacing the node keeps its pods.
  s.add_node(NodeBuilder("a").build());
  CHECK(s.find("a")->pods().size() == 1);
  CHECK(s.image_node_count("nginx:1") == 1);
  REQUIRE(s.remove_pod("a", p->uid).is_ok());
  CHECK(s.find("a")->requested().milli_cpu == 0);
  CHECK(s.find("a")->used_ports().empty());
  CHECK(s.remove_pod("a", p->uid).code() == Code::kNotFound);
  s.remove_node("a");
  CHECK(s.size() == 1);
  CHECK(s.find("a") == nullptr);
  CHECK(s.find("b") != nullptr);
}

}  // namespace
}  // namespace k3c::scheduler

namespace k3c::scheduler {
namespace {

using testing::NodeBuilder;
using testing::PodBuilder;

int64_t indexed(const Snapshot& s, const std::string& node, const char* app) {
  const auto* nodes = s.nodes_with_label(label_index_key("default", "app", app));
  if (!nodes) return 0;
  size_t position = static_cast<size_t>(s.find(node) - &s.node(0));
  for (const auto& [p, n] : *nodes) {
    if (p == position) return n;
  }
  return 0;
}

TEST_CASE("the label index follows pods and survives node removal") {
  Snapshot s;
  for (const char* n : {"a", "b", "c"}) s.add_node(NodeBuilder(n).build());
  REQUIRE(s.add_pod(PodBuilder("w1").node("a").label("app", "web").build()).is_ok());
  REQUIRE(s.add_pod(PodBuilder("w2").node("c").label("app", "web").build()).is_ok());
  REQUIRE(s.add_pod(PodBuilder("w3").node("c").label("app", "web").build()).is_ok());
  CHECK(indexed(s, "a", "web") == 1);
  CHECK(indexed(s, "c", "web") == 2);
  CHECK(s.find("c")->label_count(label_index_key("default", "app", "web")) == 2);
  // Removing "a" moves "c" into its position; the index must follow.
  s.remove_node("a");
  CHECK(indexed(s, "c", "web") == 2);
  CHECK(s.nodes_with_label(label_index_key("default", "app", "web"))->size() == 1);
  REQUIRE(s.remove_pod("c", "default-w2").is_ok());
  REQUIRE(s.remove_pod("c", "default-w3").is_ok());
  CHECK(s.nodes_with_label(label_index_key("default", "app", "web")) == nullptr);
}

}  // namespace
}  // namespace k3c::scheduler
