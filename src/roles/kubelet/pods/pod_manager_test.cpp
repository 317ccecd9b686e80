// The pod manager against the fake API and the fake runtime: pods of this node are run and
// their status written (only on change), pods of other nodes are left alone, a deleted pod
// is stopped and removed from the API, sandboxes nobody owns are cleaned up, events reach the
// API with upstream's reasons.
#include "roles/kubelet/pods/pod_manager.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "client/in_process_client.h"
#include "roles/controllers/testing/fake_api.h"
#include "roles/kubelet/pods/testing/fake_runtime.h"
#include "temp_dir.h"

namespace k3c::kubelet {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

const char* kPods = "/api/v1/namespaces/ns/pods";

json podm_pod(const std::string& name, const std::string& node) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", "ns"}}},
          {"spec",
           {{"nodeName", node},
            {"restartPolicy", "Always"},
            {"containers", {{{"name", "app"}, {"image", "img:1"}}}}}},
          {"status", {{"phase", "Pending"}}}};
}

struct ManagerHarness {
  controllers::testing::FakeApi api;
  std::atomic<bool> api_down{false};  // every call fails, as with no API server reachable
  client::InProcessClient client{[this](http::Request& r) {
                                   if (!api_down) return api.handle(r);
                                   http::Response down;
                                   down.status = 503;
                                   down.body = "no API server";
                                   return down;
                                 },
                                 {}};
  client::EventRecorder recorder{client, "kubelet"};
  testing::FakeRuntime runtime{SystemClock::instance()};
  std::unique_ptr<PodManager> manager;

  ManagerHarness() { runtime.add_image("img:1"); }
  std::function<std::optional<std::string>(const json&)> admit;
  std::function<std::vector<std::string>()> pod_dirs;
  std::function<void(const std::string&)> cleanup;
  ~ManagerHarness() {
    if (manager) manager->stop();
    recorder.stop();
  }
  std::string static_pod_dir;
  std::unique_ptr<TempDir> manifests;
  // Writes a static pod manifest; the first makes the manifest directory and registers the
  // node (the mirror's owner). The file's path.
  std::string write_manifest(const std::string& file, const std::string& yaml) {
    if (!manifests) {
      manifests = std::make_unique<TempDir>();
      static_pod_dir = manifests->path();
      api.seed("/api/v1/nodes", {{"metadata", {{"name", "n1"}}}});
    }
    std::ofstream(manifests->path() + "/" + file) << yaml;
    return manifests->path() + "/" + file;
  }
  NodeFacts node{"n1", {"192.168.0.2"}, {}};
  PodCgroupSettings cgroups;
  void start(bool wait_synced = true) {
    PodManagerConfig config;
    config.static_pod_dir = static_pod_dir;
    config.file_check_frequency = 20ms;
    config.node_name = "n1";
    config.node = node;
    config.cgroups = cgroups;
    config.workers = 2;
    config.relist_period = 20ms;
    manager = std::make_unique<PodManager>(client, runtime, runtime, recorder,
                                           SystemClock::instance(), config);
    if (admit) manager->set_admission(admit);
    if (pod_dirs) manager->set_pod_dirs(pod_dirs);
    if (cleanup) manager->set_pod_cleanup(cleanup);
    manager->start();
    if (wait_synced) REQUIRE(manager->wait_synced(5s));
  }
  json object(const std::string& name) { return api.object(std::string(kPods) + "/" + name); }
  template <typename F>
  static bool eventually(F done) {
    for (int i = 0; i < 500; ++i) {
      if (done()) return true;
      std::this_thread::sleep_for(10ms);
    }
    return done();
  }
  int status_writes(const std::string& name) {
    int n = 0;
    for (const auto& a : api.actions()) {
      n += a.path == std::string(kPods) + "/" + name + "/status";
    }
    return n;
  }
};

TEST_CASE("pods of this node run and report status; other nodes' pods are left alone") {
  ManagerHarness h;
  json kubernetes = {{"metadata", {{"name", "kubernetes"}, {"namespace", "default"}}},
                     {"spec", {{"clusterIP", "10.43.0.1"}, {"ports", {{{"port", 443}}}}}}};
  h.api.seed("/api/v1/namespaces/default/services", kubernetes);
  h.api.seed(kPods, podm_pod("web", "n1"));
  h.start();
  REQUIRE(h.eventually([&] { return h.object("web")["status"].value("phase", "") == "Running"; }));
  const std::string app = h.runtime.container("app")->id;
  // What the API server does on a graceful delete: set the deletion timestamp and grace.
  json mark = {
      {"metadata",
       {{"deletionTimestamp", "2026-01-01T00:00:00Z"}, {"deletionGracePeriodSeconds", 3}}}};
  http::Request patch;
  patch.method = "PATCH";
  patch.path = std::string(kPods) + "/web";
  patch.body = mark.dump();
  h.api.handle(patch);
  REQUIRE(h.eventually([&] { return h.object("web").is_null(); }));
  bool deleted = false;
  for (const auto& a : h.api.actions()) {
    if (a.verb != "DELETE") continue;
    deleted = true;
    CHECK(a.body["gracePeriodSeconds"] == 0);
    CHECK(a.body["preconditions"]["uid"] == "uid-web");
  }
  CHECK(deleted);
  auto calls = h.runtime.calls();
  CHECK(std::find(calls.begin(), calls.end(), "stop_container " + app + " 3s") != calls.end());
  // Once the pod is gone, its sandbox is removed too.
  REQUIRE(h.eventually([&] { return h.runtime.sandboxes().empty(); }));
}

TEST_CASE("an evicted pod is reported Failed/Evicted and stopped with the eviction's grace") {
  ManagerHarness h;
  json web = podm_pod("web", "n1");
  web["spec"]["terminationGracePeriodSeconds"] = 30;
  h.api.seed(kPods, web);
  h.start();
  REQUIRE(h.eventually([&] { return h.object("web")["status"].value("phase", "") == "Running"; }));
  const std::string app = h.runtime.container("app")->id;
  const std::string message = "The node was low on resource: memory. ";
  h.manager->evict(h.object("web"), message, true, 0);
  REQUIRE(h.eventually([&] {
    return h.object("web")["status"].value("reason", "") == "Evicted" &&
           h.runtime.container("app")->state == runtime::ContainerState::kExited;
  }));
  const json status = h.object("web")["status"];
  CHECK(status["phase"] == "Failed");
  CHECK(status["message"] == message);
  bool disruption = false;
  for (const json& c : status["conditions"]) {
    if (c["type"] != "DisruptionTarget") continue;
    disruption = true;
    CHECK(c["status"] == "True");
    CHECK(c["reason"] == "TerminationByKubelet");
    CHECK(c["message"] == message);
  }
  CHECK(disruption);
  // Grace 0 becomes upstream's 2 s minimum, not the pod's 30 s.
  auto calls = h.runtime.calls();
  CHECK(std::find(calls.begin(), calls.end(), "stop_container " + app + " 2s") != calls.end());
  // A Failed pod stays Failed: it is not started again.
  std::this_thread::sleep_for(100ms);
  CHECK(h.object("web")["status"]["phase"] == "Failed");
  CHECK(h.runtime.container("app")->state == runtime::ContainerState::kExited);
}

TEST_CASE("a new pod the admission rejects is Failed/Evicted and never started") {
  ManagerHarness h;
  h.admit = [](const json& podm_pod) -> std::optional<std::string> {
    if (podm_pod["metadata"]["name"] == "late") return "The node had condition: [DiskPressure]. ";
    return std::nullopt;
  };
  h.api.seed(kPods, podm_pod("late", "n1"));
  h.api.seed(kPods, podm_pod("fine", "n1"));
  h.start();
  REQUIRE(h.eventually([&] { return h.object("late")["status"].value("phase", "") == "Failed"; }));
  CHECK(h.object("late")["status"]["reason"] == "Evicted");
  CHECK(h.object("late")["status"]["message"] ==
        "Pod was rejected: The node had condition: [DiskPressure]. ");
  REQUIRE(h.eventually([&] { return h.object("fine")["status"].value("phase", "") == "Running"; }));
  std::this_thread::sleep_for(100ms);
  CHECK(h.runtime.sandboxes().size() == 1);  // only fine's
  CHECK(h.object("late")["status"]["phase"] == "Failed");
  CHECK_FALSE(h.object("late")["status"].contains("containerStatuses"));
  CHECK(h.status_writes("late") == 1);
}

TEST_CASE("sandboxes no pod owns are stopped and removed") {
  ManagerHarness h;
  const std::string stray = h.runtime.add_stray_sandbox("no-such-pod");
  h.start();
  REQUIRE(h.eventually([&] { return h.runtime.sandboxes().empty(); }));
  auto calls = h.runtime.calls();
  CHECK(std::find(calls.begin(), calls.end(), "stop_pod_sandbox " + stray) != calls.end());
  CHECK(std::find(calls.begin(), calls.end(), "remove_pod_sandbox " + stray) != calls.end());
}

TEST_CASE("a static pod runs from its manifest and is mirrored into the API") {
  ManagerHarness h;
  const std::string manifest = h.write_manifest("web.yaml", R"(apiVersion: v1
kind: Pod
metadata: {name: web, namespace: ns}
spec:
  terminationGracePeriodSeconds: 4
  containers: [{name: app, image: "img:1"}]
)");
  h.start();
  const std::string mirror_name = "web-n1";
  auto running = [&] {
    json mirror = h.object(mirror_name);
    return mirror.is_object() &&
           mirror.value("status", json::object()).value("phase", "") == "Running";
  };
  REQUIRE(h.eventually(running));
  json mirror = h.object(mirror_name);
  const json& annotations = mirror["metadata"]["annotations"];
  const std::string hash = annotations.value("kubernetes.io/config.mirror", "");
  CHECK(hash.size() == 32);
  CHECK(annotations["kubernetes.io/config.hash"] == hash);
  CHECK(annotations["kubernetes.io/config.source"] == "file");
  CHECK(mirror["metadata"]["ownerReferences"][0]["kind"] == "Node");
  CHECK(mirror["metadata"]["ownerReferences"][0]["uid"] == "uid-n1");
  // The runtime runs the pod under the static uid, not the mirror's.
  REQUIRE(h.runtime.sandboxes().size() == 1);
  CHECK(h.runtime.sandboxes()[0].config.pod_uid == hash);
  const std::string app = h.runtime.container("app")->id;

  // Deleting the mirror does not stop the pod: a new mirror comes back. (A label put on the
  // old one tells them apart.)
  http::Request mark;
  mark.method = "PATCH";
  mark.path = std::string(kPods) + "/" + mirror_name;
  mark.body = R"({"metadata":{"labels":{"old":"yes"}}})";
  h.api.handle(mark);
  http::Request del;
  del.method = "DELETE";
  del.path = std::string(kPods) + "/" + mirror_name;
  h.api.handle(del);
  REQUIRE(h.eventually([&] {
    json m = h.object(mirror_name);
    return running() && !m["metadata"].value("labels", json::object()).contains("old");
  }));
  CHECK(h.runtime.container("app")->id == app);
  CHECK(h.runtime.container("app")->state == runtime::ContainerState::kRunning);

  // Removing the manifest stops the pod within its grace period and deletes the mirror.
  std::filesystem::remove(manifest);
  REQUIRE(h.eventually([&] { return h.object(mirror_name).is_null(); }));
  REQUIRE(h.eventually([&] { return h.runtime.sandboxes().empty(); }));
  auto calls = h.runtime.calls();
  CHECK(std::find(calls.begin(), calls.end(), "stop_container " + app + " 4s") != calls.end());
}

TEST_CASE("a static pod runs while no API server answers; its mirror follows once one does") {
  ManagerHarness h;
  // Only name, image and command: the kubelet's own v1 defaults make it runnable.
  h.write_manifest("web.yaml", R"(apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers: [{name: app, image: "img:1", command: [sleep, "3600"]}]
)");
  // A stray sandbox: no pod is known to own it, but the API's pods are not listed yet.
  const std::string stray = h.runtime.add_stray_sandbox("maybe-an-api-pod");
  h.api_down = true;
  h.start(false);
  REQUIRE(h.eventually([&] {
    auto app = h.runtime.container("app");
    return app && app->state == runtime::ContainerState::kRunning;
  }));
  std::this_thread::sleep_for(100ms);        // a few relists more
  CHECK(h.runtime.sandboxes().size() == 2);  // the stray one is left while the API is down
  // The QoS tiers are made meanwhile (only grown until every pod is known).
  CHECK(h.runtime.cgroups().count("kubepods") == 1);
  CHECK(h.runtime.cgroups().count("kubepods/besteffort") == 1);
  CHECK_FALSE(h.manager->wait_synced(0s));
  const std::string app = h.runtime.container("app")->id;

  // The API server answers: the mirror pod appears with the pod's status; the stray
  // sandbox goes; the container is the same.
  h.api_down = false;
  REQUIRE(h.eventually([&] {
    json mirror = h.api.object("/api/v1/namespaces/default/pods/web-n1");
    return mirror.is_object() &&
           mirror.value("status", json::object()).value("phase", "") == "Running";
  }));
  REQUIRE(h.eventually([&] { return h.runtime.sandboxes().size() == 1; }));
  CHECK(h.runtime.container("app")->id == app);
  const json mirror = h.api.object("/api/v1/namespaces/default/pods/web-n1");
  CHECK(mirror["spec"]["restartPolicy"] == "Always");
  CHECK(mirror["spec"]["terminationGracePeriodSeconds"] == 30);
}

TEST_CASE("a mirror pod without a static pod behind it is deleted") {
  ManagerHarness h;
  json orphan = podm_pod("old-n1", "n1");
  orphan["metadata"]["annotations"] = {{"kubernetes.io/config.mirror", "abc"}};
  h.api.seed(kPods, orphan);
  h.start();
  REQUIRE(h.eventually([&] { return h.object("old-n1").is_null(); }));
  CHECK(h.runtime.sandboxes().empty());
}

TEST_CASE("the QoS tiers follow the Burstable pods' CPU requests; pods get the pids limit") {
  ManagerHarness h;
  h.node.allocatable = {{"cpu", "2"}, {"memory", "4Gi"}};
  h.cgroups = {"/k3c-test/", 64};
  auto burstable = [](const std::string& name, const std::string& cpu) {
    json pod = podm_pod(name, "n1");
    pod["spec"]["containers"][0]["resources"] = {{"requests", {{"cpu", cpu}}}};
    pod["status"]["qosClass"] = "Burstable";
    return pod;
  };
  h.api.seed(kPods, burstable("web", "250m"));
  h.start();
  auto shares = [&](const std::string& path) -> int64_t {
    auto cgroups = h.runtime.cgroups();
    auto it = cgroups.find(path);
    return it == cgroups.end() ? -1 : it->second.cpu_shares;
  };
  REQUIRE(h.eventually([&] { return h.object("web")["status"].value("phase", "") == "Running"; }));
  CHECK(shares("k3c-test/kubepods") == 2048);  // 2 CPUs
  CHECK(shares("k3c-test/kubepods/besteffort") == 2);
  CHECK(shares("k3c-test/kubepods/burstable") == 256);  // 250m
  // Sized before the pod's sandbox was made.
  auto sandboxes = h.runtime.sandboxes();
  REQUIRE(sandboxes.size() == 1);
  CHECK(sandboxes[0].config.cgroup_parent == "k3c-test/kubepods/burstable/poduid-web");
  CHECK(sandboxes[0].config.pod_resources.pids_limit == 64);
  CHECK(sandboxes[0].config.pod_resources.cpu_shares == 256);

  http::Request create;
  create.method = "POST";
  create.path = kPods;
  create.body = burstable("api", "500m").dump();
  h.api.handle(create);
  REQUIRE(h.eventually([&] { return shares("k3c-test/kubepods/burstable") == 768; }));
  // A pod gone (force-deleted) no longer counts.
  http::Request remove;
  remove.method = "DELETE";
  remove.path = std::string(kPods) + "/web";
  h.api.handle(remove);
  CHECK(h.eventually([&] { return shares("k3c-test/kubepods/burstable") == 512; }));
}

TEST_CASE("the QoS tiers only grow while not every pod is known; update() sets them as they are") {
  testing::FakeRuntime runtime{SystemClock::instance()};
  QosCgroups qos(runtime, "/", 2000);
  auto burstable = [&] { return runtime.cgroups().at("kubepods/burstable").cpu_shares; };
  qos.grow(500);
  CHECK(runtime.cgroups().at("kubepods").cpu_shares == 2048);
  CHECK(runtime.cgroups().at("kubepods/besteffort").cpu_shares == 2);
  CHECK(burstable() == 512);
  qos.grow(100);
  CHECK(burstable() == 512);
  qos.update(100);
  CHECK(burstable() == 102);
}

TEST_CASE("a relist stalled for over 3 minutes is upstream's PLEG not healthy") {
  controllers::testing::FakeApi api;
  client::InProcessClient client{[&](http::Request& r) { return api.handle(r); }, {}};
  client::EventRecorder recorder{client, "kubelet"};
  ManualClock clock;
  testing::FakeRuntime runtime{clock};
  PodManagerConfig config;
  config.node_name = "n1";
  PodManager manager(client, runtime, runtime, recorder, clock, config);
  CHECK(manager.health_problem().empty());  // never listed yet: starting, not stalled
  manager.relist_once();
  clock.advance(3min);
  CHECK(manager.health_problem().empty());
  clock.advance(5s);
  CHECK(manager.health_problem() ==
        "PLEG is not healthy: pleg was last seen active 3m5s ago; threshold is 3m0s");
  manager.relist_once();
  CHECK(manager.health_problem().empty());
  recorder.stop();
}

TEST_CASE("a pod directory no pod and no sandbox owns is cleaned up; the others stay") {
  ManagerHarness h;
  std::mutex mu;
  std::vector<std::string> cleaned;
  h.pod_dirs = [] { return std::vector<std::string>{"uid-web", "uid-gone"}; };
  h.cleanup = [&](const std::string& uid) {
    std::lock_guard lock(mu);
    cleaned.push_back(uid);
  };
  h.api.seed(kPods, podm_pod("web", "n1"));
  h.start();
  REQUIRE(h.eventually([&] {
    std::lock_guard lock(mu);
    return !cleaned.empty();
  }));
  std::this_thread::sleep_for(100ms);  // a few relists more
  std::lock_guard lock(mu);
  for (const std::string& uid : cleaned) CHECK(uid == "uid-gone");
}

TEST_CASE("a pod cgroup no pod and no sandbox owns is removed at the relist; the others stay") {
  ManagerHarness h;
  h.cgroups = {"/k3c-test/", 0};
  h.runtime.add_stray_pod_cgroup("k3c-test/kubepods/besteffort/poduid-gone");
  h.runtime.add_stray_pod_cgroup("k3c-test/kubepods/podguaranteed-gone");
  h.runtime.add_stray_pod_cgroup("k3c-test/kubepods/burstable/not-a-pod");
  h.api.seed(kPods, podm_pod("web", "n1"));
  h.start();
  REQUIRE(h.eventually([&] { return h.runtime.container("app").has_value(); }));
  REQUIRE(h.eventually([&] { return h.runtime.pod_cgroups().size() == 2; }));
  std::this_thread::sleep_for(100ms);  // a few relists more
  CHECK(h.runtime.pod_cgroups() == std::set<std::string>{"k3c-test/kubepods/besteffort/poduid-web",
                                                         "k3c-test/kubepods/burstable/not-a-pod"});
  auto calls = h.runtime.calls();
  CHECK(std::count(calls.begin(), calls.end(),
                   "remove_cgroup k3c-test/kubepods/besteffort/poduid-gone") == 1);
  CHECK(std::count(calls.begin(), calls.end(),
                   "remove_cgroup k3c-test/kubepods/podguaranteed-gone") == 1);
}

}  // namespace
}  // namespace k3c::kubelet
