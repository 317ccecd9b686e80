#include "core/compact_json.h"

#include <malloc.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <random>
#include <vector>

namespace k3c::cjson {
namespace {

using nlohmann::json;

// A running pod as the control plane's informers keep it (trimmed, no managedFields).
const json kPod = json::parse(R"({
  "apiVersion": "v1", "kind": "Pod",
  "metadata": {"creationTimestamp": "2026-12-04T23:54:05Z", "generateName": "web-6c8d9878b5-",
    "labels": {"app": "web", "pod-template-hash": "6c8d9878b5"}, "name": "web-6c8d9878b5-5l9b7",
    "namespace": "web", "ownerReferences": [{"apiVersion": "apps/v1", "blockOwnerDeletion": true,
    "controller": true, "kind": "ReplicaSet", "name": "web-6c8d9878b5",
    "uid": "0b3c4a1e-5f7d-4c1e-9a57-3f1f2d9c8e11"}], "resourceVersion": "123456",
    "uid": "9e1c7f0a-2b3d-4e5f-8a9b-0c1d2e3f4a5b"},
  "spec": {"containers": [{"image": "registry.example/bench:1", "name": "app",
    "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}}}], "nodeName": "hollow-243",
    "preemptionPolicy": "PreemptLowerPriority", "priority": 0, "restartPolicy": "Always",
    "schedulerName": "default-scheduler", "serviceAccountName": "default",
    "tolerations": [{"effect": "NoExecute", "key": "node.kubernetes.io/not-ready",
    "operator": "Exists", "tolerationSeconds": 300}, {"effect": "NoExecute",
    "key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 300}]},
  "status": {"conditions": [{"lastTransitionTime": "2026-12-04T23:54:09Z", "status": "True",
    "type": "PodReadyToStartContainers"}, {"lastTransitionTime": "2026-12-04T23:54:09Z",
    "status": "True", "type": "Initialized"}, {"lastTransitionTime": "2026-12-04T23:54:09Z",
    "status": "True", "type": "Ready"}, {"lastTransitionTime": "2026-12-04T23:54:09Z",
    "status": "True", "type": "ContainersReady"}, {"lastTransitionTime": "2026-12-04T23:54:06Z",
    "status": "True", "type": "PodScheduled"}], "containerStatuses": [{"image":
    "registry.example/bench:1", "lastState": {}, "name": "app", "ready": true, "restartCount": 0,
    "started": true, "state": {"running": {"startedAt": "2026-12-04T23:54:09Z"}}}],
    "hostIP": "172.16.0.244", "hostIPs": [{"ip": "172.16.0.244"}], "phase": "Running",
    "podIP": "10.97.2.11", "podIPs": [{"ip": "10.97.2.11"}], "qosClass": "Burstable",
    "startTime": "2026-12-04T23:54:09Z"}
})");

json random_value(std::mt19937& rng, int depth) {
  switch (depth > 3 ? rng() % 6 : rng() % 8) {
    case 0:
      return nullptr;
    case 1:
      return rng() % 2 == 0;
    case 2:
      return static_cast<int64_t>(rng()) - (1LL << 31);
    case 3:
      return static_cast<uint64_t>(rng()) << 33;
    case 4:
      return static_cast<double>(rng() % 1000) / 8.0;
    case 5: {
      std::string s;  // letters, control characters (escaped by dump) and a 2-byte letter
      for (int n = rng() % 40; n > 0; --n) {
        unsigned pick = rng() % 4;
        s += pick == 0   ? std::string(1, static_cast<char>(1 + rng() % 31))
             : pick == 1 ? std::string("\xc3\xa9")
                         : std::string(1, static_cast<char>('a' + rng() % 26));
      }
      return s;
    }
    case 6: {
      json a = json::array();
      for (int i = rng() % 5; i > 0; --i) a.push_back(random_value(rng, depth + 1));
      return a;
    }
    default: {
      json o = json::object();
      // Keys of the known table and others, interleaved in byte order.
      static const char* kKnown[] = {"kind", "name", "status", "Port", "uid"};
      for (int i = rng() % 6; i > 0; --i) {
        std::string key = rng() % 4 == 0
                              ? kKnown[rng() % 5]
                              : "k" + std::to_string(rng() % 20) + (rng() % 3 ? "" : "\xc3\xa9");
        o[key] = random_value(rng, depth + 1);
      }
      return o;
    }
  }
}

TEST_CASE("a compact document reads as the tree it was made from") {
  auto doc = Document::from(kPod);
  Value pod = doc->root();
  CHECK(pod.is_object());
  CHECK(pod.size() == 5);
  CHECK(pod["kind"] == "Pod");
  CHECK(pod["metadata"]["labels"].value("app", "") == "web");
  CHECK(pod["metadata"]["labels"].value("tier", "none") == "none");
  CHECK(pod["spec"].value("priority", int64_t{7}) == 0);
  CHECK(pod["spec"]["tolerations"][1]["key"].text() == "node.kubernetes.io/unreachable");
  CHECK(pod["spec"]["tolerations"][1].value("tolerationSeconds", 0) == 300);
  CHECK(pod["status"]["containerStatuses"][0].value("ready", false));
  CHECK(pod["status"]["containerStatuses"][0]["lastState"].empty());
  CHECK(pod.find("nope") == pod.end());
  CHECK_FALSE(pod.contains("nope"));
  CHECK(pod.count("spec") == 1);
  CHECK_FALSE(pod["kind"].contains("x"));  // find on a scalar: nothing, as nlohmann
  CHECK(pod["metadata"]["ownerReferences"][0]["controller"].get<bool>());

  std::vector<std::string> keys;
  for (const auto& item : pod["metadata"].items()) keys.push_back(item.key());
  CHECK(keys == std::vector<std::string>{"creationTimestamp", "generateName", "labels", "name",
                                         "namespace", "ownerReferences", "resourceVersion", "uid"});
  int ready = 0;
  for (Value c : pod["status"]["conditions"]) ready += c.value("status", "") == "True";
  CHECK(ready == 5);

  CHECK(pod == kPod);
  CHECK(kPod == pod);
  CHECK(pod.to_json() == kPod);
  CHECK(pod.dump() == kPod.dump());
  CHECK_FALSE(pod["spec"] == kPod["status"]);
  CHECK(pod["spec"] == Document::from(kPod["spec"])->root());
}

TEST_CASE("misuse of a compact document throws as nlohmann does") {
  auto doc = Document::from(kPod);
  Value pod = doc->root();
  CHECK_THROWS_AS(pod["nope"], json::out_of_range);
  CHECK_THROWS_AS(pod["spec"]["tolerations"][2], json::out_of_range);
  CHECK_THROWS_AS(pod["kind"]["x"], json::type_error);
  CHECK_THROWS_AS(pod["kind"].get<int64_t>(), json::type_error);
  CHECK_THROWS_AS(pod["spec"]["priority"].text(), json::type_error);
  CHECK_THROWS_AS(pod["kind"].value("x", ""), json::type_error);         // value() of a string
  CHECK_THROWS_AS(pod["spec"].value("priority", ""), json::type_error);  // a number as text
}

TEST_CASE("numbers compare and convert as nlohmann's") {
  json j = {{"i", -5}, {"u", 5u}, {"f", 5.0}, {"big", 18446744073709551615u}, {"t", true}};
  auto doc = Document::from(j);
  Value v = doc->root();
  CHECK(v["i"].is_number_integer());
  CHECK_FALSE(v["i"].is_number_unsigned());
  CHECK(v["u"].is_number_unsigned());
  CHECK(v["f"].is_number_float());
  CHECK(v["u"] == v["f"]);
  CHECK(v["u"] == json(5));
  CHECK(v["f"] == json(5));
  CHECK_FALSE(v["i"] == json(18446744073709551611u));
  CHECK(v["big"].get<uint64_t>() == 18446744073709551615u);
  CHECK(v["i"].get<double>() == -5.0);
  CHECK(v["f"].get<int>() == 5);
  CHECK(v["t"].get<int>() == 1);
  CHECK(v["t"].size() == 1);
  CHECK(Document::from(nullptr)->root().size() == 0);
}

TEST_CASE("random trees survive the compact form") {
  std::mt19937 rng(11);
  for (int i = 0; i < 500; ++i) {
    json j = random_value(rng, 0);
    auto doc = Document::from(j);
    REQUIRE(doc->root() == j);
    REQUIRE(doc->root().to_json() == j);
    REQUIRE(doc->root().dump() == j.dump());
    REQUIRE(doc->root() == Document::from(j)->root());
    if (j.is_object()) {
      for (const auto& [key, value] : j.items()) {
        REQUIRE(doc->root().contains(key));
        REQUIRE(doc->root()[key] == value);
      }
    }
  }
}

TEST_CASE("keys known by number, kept inline and too long to inline read back alike") {
  auto known = known_keys();
  REQUIRE(std::is_sorted(known.begin(), known.end()));
  REQUIRE(std::adjacent_find(known.begin(), known.end()) == known.end());

  const std::string long_key(70000, 'k');  // past a 16-bit inline length
  json j = {{"metadata", {{"name", "x"}}},
            {"zz-not-known", 2},
            {long_key, 3},
            {"Port", 4},
            {"\xc3\xa9", 5},
            {"", 6},
            {"names", json::array()}};
  auto doc = Document::from(j);
  REQUIRE(doc->root() == j);
  CHECK(doc->root().dump() == j.dump());
  for (const auto& [key, value] : j.items()) {
    INFO(key.substr(0, 20));
    REQUIRE(doc->root().contains(key));
    CHECK(doc->root()[key] == value);
  }
  CHECK_FALSE(doc->root().contains("nam"));
  CHECK_FALSE(doc->root().contains(std::string(69999, 'k')));
  std::vector<std::string> order;
  for (auto it = doc->root().begin(); it != doc->root().end(); ++it) order.push_back(it.key());
  std::vector<std::string> expected;
  for (const auto& [key, value] : j.items()) expected.push_back(key);
  CHECK(order == expected);
  // A known key takes no string bytes; another takes its own.
  const size_t base = Document::from(json::object())->bytes();
  CHECK(Document::from({{"name", "x"}})->bytes() == base + sizeof(Node) + 1);
  CHECK(Document::from({{"nome", "x"}})->bytes() == base + sizeof(Node) + 5);
}

TEST_CASE("a pod as a compact document and as a tree: size and lookups", "[.bench]") {
  constexpr int kCopies = 10000;
  auto heap = [] { return mallinfo2().uordblks; };
  size_t before = heap();
  std::vector<json> trees(kCopies, kPod);
  double tree_bytes = static_cast<double>(heap() - before) / kCopies;
  before = heap();
  std::vector<std::shared_ptr<const Document>> docs;
  for (int i = 0; i < kCopies; ++i) docs.push_back(Document::from(kPod));
  double doc_bytes = static_cast<double>(heap() - before) / kCopies;

  auto time = [&](auto read) {
    auto start = std::chrono::steady_clock::now();
    int ready = 0;
    for (int i = 0; i < kCopies; ++i) ready += read(i);
    REQUIRE(ready == kCopies);
    return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start)
               .count() /
           kCopies;
  };
  // What a controller asks of every pod it syncs: its controller and whether it is Ready.
  auto ready_tree = [&](int i) {
    const json& p = trees[i];
    bool owned = p["metadata"]["ownerReferences"][0].value("controller", false);
    for (const auto& c : p["status"]["conditions"])
      if (c["type"] == "Ready") return owned && c["status"] == "True";
    return false;
  };
  auto ready_doc = [&](int i) {
    Value p = docs[i]->root();
    bool owned = p["metadata"]["ownerReferences"][0].value("controller", false);
    for (Value c : p["status"]["conditions"])
      if (c["type"] == "Ready") return owned && c["status"] == "True";
    return false;
  };
  double tree_ns = time(ready_tree), doc_ns = time(ready_doc);
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kCopies; ++i) docs[i] = Document::from(trees[i]);
  double build_ns =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() /
      kCopies;
  WARN("a " << kPod.dump().size() << "-byte pod: tree " << tree_bytes << " B, compact " << doc_bytes
            << " B (" << docs[0]->bytes() << " B counted), ratio " << doc_bytes / tree_bytes
            << "; controller+Ready read: tree " << tree_ns << " ns, compact " << doc_ns
            << " ns; building from the tree " << build_ns << " ns");
}

}  // namespace
}  // namespace k3c::cjson
