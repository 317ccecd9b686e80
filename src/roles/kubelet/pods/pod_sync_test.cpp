// Whole syncs of one pod against the fake runtime: lifecycle and phases, crash-loop backoff
// timing, init container order, image pull policies, config errors, sandbox recreation and
// graceful deletion.
#include "roles/kubelet/pods/pod_sync.h"

#include <catch2/catch.hpp>

#include "core/base64.h"
#include "roles/kubelet/pods/testing/fake_probe_network.h"
#include "roles/kubelet/pods/testing/fake_runtime.h"
#include "roles/kubelet/pods/testing/map_config_source.h"
#include "roles/kubelet/pods/testing/recorded_events.h"

namespace k3c::kubelet {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;
using Lines = std::vector<std::string>;

// A node with one kubelet: the fake runtime, objects, events and the backoffs.
struct SyncNode {
  ManualClock clock;
  testing::FakeRuntime runtime{clock};
  testing::MapConfigSource objects;
  testing::RecordedEvents events;
  Backoff crash{clock}, pull{clock};
  testing::FakeProbeNetwork network;
  ProbeTracker probes{clock, runtime, network};
  std::function<Result<std::vector<json>>()> services;  // unset: no Service variables
  NodeFacts facts{"n1", {"192.168.0.2"}, {{"cpu", "2"}, {"memory", "2Gi"}}};
  json pod;

  explicit SyncNode(json p) : pod(std::move(p)) {}

  // One sync; the status it computed becomes the pod's (as the manager writes it back).
  SyncResult sync() {
    SyncContext ctx{runtime, runtime, objects,         events, clock,   crash,   pull,
                    facts,   {},      "/var/log/pods", "/var/lib/kubelet/seccomp", {},
                    &probes, services};
    SyncResult r = sync_pod(pod, ctx);
    if (!r.status.is_null()) pod["status"] = r.status;
    return r;
  }
  std::string phase() const { return pod["status"].value("phase", ""); }
  json container_status(const std::string& name, const char* list = "containerStatuses") const {
    for (const auto& s : pod["status"][list]) {
      if (s["name"] == name) return s;
    }
    return json();
  }
  std::string id(const std::string& name) const { return runtime.container(name)->id; }
};

json make_pod(const std::string& policy, json containers, json inits = json::array()) {
  json p = {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", "web"}, {"namespace", "ns"}, {"uid", "u1"}}},
            {"spec", {{"nodeName", "n1"}, {"restartPolicy", policy}, {"containers", containers}}}};
  if (!inits.empty()) p["spec"]["initContainers"] = inits;
  return p;
}

json sync_container(const std::string& name, const std::string& image = "busybox:1.36") {
  return {{"name", name}, {"image", image}};
}

TEST_CASE("a pod goes Pending -> Running -> Succeeded, with upstream's events") {
  SyncNode node(make_pod("Never", {sync_container("app", "busybox:1.36")}));
  runtime::ImageSummary image;
  image.size = 1234;
  node.runtime.add_pullable_image("busybox:1.36", image);
  node.runtime.fail_pulls("busybox:1.36", "connection refused");

  auto r = node.sync();
  CHECK(node.phase() == "Pending");
  CHECK(node.container_status("app")["state"]["waiting"]["reason"] == "ErrImagePull");
  CHECK(node.container_status("app")["state"]["waiting"]["message"] == "connection refused");
  CHECK(node.events.take() ==
        Lines{"Normal Pulling [spec.containers{app}]: Pulling image \"busybox:1.36\"",
              "Warning Failed [spec.containers{app}]: Failed to pull image \"busybox:1.36\": "
              "connection refused",
              "Warning Failed [spec.containers{app}]: Error: ErrImagePull"});
  REQUIRE(r.requeue_after);

  // Within the backoff the image is not pulled again.
  node.clock.advance(2s);
  node.sync();
  CHECK(node.container_status("app")["state"]["waiting"]["reason"] == "ImagePullBackOff");
  CHECK(node.container_status("app")["state"]["waiting"]["message"] ==
        "Back-off pulling image \"busybox:1.36\"");
  CHECK(node.events.take() ==
        Lines{"Normal BackOff [spec.containers{app}]: Back-off pulling image \"busybox:1.36\"",
              "Warning Failed [spec.containers{app}]: Error: ImagePullBackOff"});

  node.runtime.fail_pulls("busybox:1.36", "");
  node.clock.advance(10s);
  node.sync();
  CHECK(node.phase() == "Running");
  auto events = node.events.take();
  REQUIRE(events.size() == 4);
  CHECK(events[1].starts_with(
      "Normal Pulled [spec.containers{app}]: Successfully pulled image \"busybox:1.36\" in "));
  CHECK(events[1].ends_with("Image size: 1234 bytes."));
  CHECK(events[2] == "Normal Created [spec.containers{app}]: Created container app");
  CHECK(events[3] == "Normal Started [spec.containers{app}]: Started container app");
  const json running = node.container_status("app");
  CHECK(running["state"].contains("running"));
  CHECK(running["containerID"] == "k3c://" + node.id("app"));
  CHECK(running["ready"] == true);

  node.runtime.exit(node.id("app"), 0);
  node.sync();
  CHECK(node.phase() == "Succeeded");
  CHECK(node.container_status("app")["state"]["terminated"]["reason"] == "Completed");
  CHECK_FALSE(node.runtime.sandboxes().front().state == runtime::SandboxState::kReady);
  // Done: a later sync changes nothing and starts nothing.
  const auto calls = node.runtime.calls().size();
  node.sync();
  CHECK(node.runtime.calls().size() == calls);
  CHECK(node.phase() == "Succeeded");
}

TEST_CASE("the container gets the resolved argv, env, labels and log path") {
  json c = {
      {"name", "app"},
      {"image", "img:1"},
      {"args", {"--name=$(POD)"}},
      {"env", {{{"name", "POD"}, {"valueFrom", {{"fieldRef", {{"fieldPath", "metadata.name"}}}}}}}},
      {"resources", {{"limits", {{"cpu", "500m"}, {"memory", "64Mi"}}}}}};
  SyncNode node(make_pod("Always", {c}));
  runtime::ImageSummary image;
  image.entrypoint = {"/entry"};
  image.env = {"PATH=/bin"};
  node.runtime.add_image("img:1", image);
  node.sync();
  auto config = node.runtime.config(node.id("app"));
  REQUIRE(config);
  CHECK(config->args == Lines{"/entry", "--name=web"});
  CHECK(config->env == Lines{"PATH=/bin", "POD=web"});
  CHECK(config->log_path == "app/0.log");
  CHECK(config->labels.at("io.kubernetes.pod.uid") == "u1");
  CHECK(config->resources.cpu_quota_us == 50000);
  CHECK(config->resources.memory_limit_bytes == 64 << 20);
  auto sandbox = node.runtime.sandboxes().front();
  CHECK(sandbox.config.cgroup_parent == "kubepods/burstable/podu1");
  CHECK(sandbox.config.log_directory == "/var/log/pods/ns_web_u1");
  CHECK(sandbox.config.resolv_conf ==
        "nameserver 10.43.0.10\nsearch ns.svc.cluster.local svc.cluster.local cluster.local\n"
        "options ndots:5\n");
  CHECK(sandbox.config.hosts.starts_with("# Kubernetes-managed hosts file.\n"));
  CHECK(sandbox.config.hostname == "web");
  CHECK(node.pod["status"]["podIP"] == sandbox.ip);
}

TEST_CASE("a crash-looping container backs off 10s, 20s, 40s") {
  SyncNode node(make_pod("Always", {sync_container("app")}));
  node.runtime.add_image("busybox:1.36");
  node.sync();
  node.events.take();

  // The first exit restarts at once.
  node.clock.advance(3s);
  node.runtime.exit(node.id("app"), 1);
  node.sync();
  CHECK(node.runtime.container("app")->attempt == 1);
  CHECK(node.container_status("app")["restartCount"] == 1);
  CHECK(node.container_status("app")["lastState"]["terminated"]["exitCode"] == 1);
  node.events.take();

  for (auto delay : {10s, 20s, 40s}) {
    node.events.take();
    node.clock.advance(1s);
    node.runtime.exit(node.id("app"), 1);
    const uint32_t attempt = node.runtime.container("app")->attempt;
    auto r = node.sync();
    const std::string text = go_duration(delay);
    const json status = node.container_status("app");
    CHECK(status["state"]["waiting"]["reason"] == "CrashLoopBackOff");
    CHECK(status["state"]["waiting"]["message"] ==
          "back-off " + text + " restarting failed container=app pod=web_ns(u1)");
    CHECK(status["lastState"]["terminated"]["exitCode"] == 1);
    CHECK(status["restartCount"] == attempt);
    CHECK(node.phase() == "Running");
    REQUIRE(r.requeue_after);
    CHECK(*r.requeue_after == delay);
    CHECK(node.events.take() == Lines{"Warning BackOff [spec.containers{app}]: Back-off "
                                      "restarting failed container app in pod web_ns(u1)"});
    // Not before the delay is over.
    node.clock.advance(delay - 1s);
    node.sync();
    CHECK(node.runtime.container("app")->attempt == attempt);
    node.clock.advance(1s);
    node.sync();
    CHECK(node.runtime.container("app")->attempt == attempt + 1);
    CHECK(node.container_status("app")["state"].contains("running"));
  }
}

TEST_CASE("restarts keep only the current and the last instance of a container") {
  SyncNode node(make_pod("OnFailure", {sync_container("app")}));
  node.runtime.add_image("busybox:1.36");
  node.sync();
  for (int i = 0; i < 4; ++i) {
    node.runtime.exit(node.id("app"), 1);
    node.clock.advance(10min);  // past any backoff
    node.sync();
  }
  auto all = node.runtime.containers();
  CHECK(all.size() == 2);
  CHECK(node.runtime.container("app")->attempt == 4);
  CHECK(node.container_status("app")["restartCount"] == 4);
  CHECK(node.container_status("app")["lastState"]["terminated"]["exitCode"] == 1);
}

TEST_CASE("init containers run one at a time, in order, before the app containers") {
  SyncNode node(make_pod("Always", {sync_container("app")},
                         {sync_container("first"), sync_container("second")}));
  node.runtime.add_image("busybox:1.36");
  auto started = [&] {
    Lines names;
    for (const auto& call : node.runtime.calls()) {
      if (call.starts_with("create_container")) names.push_back(call.substr(call.rfind(' ') + 1));
    }
    return names;
  };
  node.sync();
  CHECK(started() == Lines{"first"});
  CHECK(node.phase() == "Pending");
  CHECK(node.container_status("app")["state"]["waiting"]["reason"] == "PodInitializing");
  node.sync();  // still running: nothing new
  CHECK(started() == Lines{"first"});

  node.runtime.exit(node.id("first"), 0);
  node.sync();
  CHECK(started() == Lines{"first", "second"});
  node.runtime.exit(node.id("second"), 0);
  node.sync();
  CHECK(started() == Lines{"first", "second", "app"});
  CHECK(node.phase() == "Running");
  const json conditions = node.pod["status"]["conditions"];
  CHECK(std::any_of(conditions.begin(), conditions.end(), [](const json& c) {
    return c["type"] == "Initialized" && c["status"] == "True";
  }));
}

TEST_CASE("a sidecar starts before the next init container and is kept running") {
  json sidecar = sync_container("proxy");
  sidecar["restartPolicy"] = "Always";
  SyncNode node(make_pod("Never", {sync_container("app")}, {sidecar, sync_container("setup")}));
  node.runtime.add_image("busybox:1.36");
  node.sync();
  CHECK(node.runtime.container("proxy")->state == runtime::ContainerState::kRunning);
  CHECK(node.runtime.container("setup")->state == runtime::ContainerState::kRunning);
  CHECK_FALSE(node.runtime.container("app"));
  node.runtime.exit(node.id("setup"), 0);
  node.sync();
  CHECK(node.runtime.container("app")->state == runtime::ContainerState::kRunning);
  CHECK(node.phase() == "Running");
  // A sidecar that exits is restarted even under restartPolicy Never.
  node.runtime.exit(node.id("proxy"), 1);
  node.sync();
  CHECK(node.runtime.container("proxy")->attempt == 1);
  CHECK(node.runtime.container("proxy")->state == runtime::ContainerState::kRunning);
  // When the app container is done, the sidecar is stopped and the pod succeeds.
  node.runtime.exit(node.id("app"), 0);
  node.sync();
  CHECK(node.runtime.container("proxy")->state == runtime::ContainerState::kExited);
  CHECK(node.phase() == "Succeeded");
}

TEST_CASE("a failed init container: restarted under OnFailure, fails the pod under Never") {
  SECTION("Never") {
    SyncNode node(make_pod("Never", {sync_container("app")}, {sync_container("init")}));
    node.runtime.add_image("busybox:1.36");
    node.sync();
    node.runtime.exit(node.id("init"), 2);
    node.sync();
    CHECK(node.phase() == "Failed");
    CHECK_FALSE(node.runtime.container("app"));
    CHECK(node.runtime.sandboxes().front().state == runtime::SandboxState::kNotReady);
    node.sync();  // no new sandbox for a failed pod
    CHECK(node.runtime.sandboxes().size() == 1);
  }
  SECTION("OnFailure") {
    SyncNode node(make_pod("OnFailure", {sync_container("app")}, {sync_container("init")}));
    node.runtime.add_image("busybox:1.36");
    node.sync();
    node.runtime.exit(node.id("init"), 2);
    node.sync();
    CHECK(node.runtime.container("init")->attempt == 1);
    CHECK(node.phase() == "Pending");
    node.runtime.exit(node.id("init"), 2);
    node.sync();
    CHECK(node.container_status("init", "initContainerStatuses")["state"]["waiting"]["reason"] ==
          "CrashLoopBackOff");
    CHECK_FALSE(node.runtime.container("app"));
  }
}

TEST_CASE("a missing ConfigMap key: CreateContainerConfigError and nothing started") {
  json c = sync_container("app");
  c["env"] = {
      {{"name", "X"}, {"valueFrom", {{"configMapKeyRef", {{"name", "cfg"}, {"key", "k"}}}}}}};
  SyncNode node(make_pod("Always", {c}));
  node.runtime.add_image("busybox:1.36", {});
  node.objects.put_config_map("ns", "cfg", {{"other", "1"}});
  auto r = node.sync();
  CHECK(node.phase() == "Pending");
  const json waiting = node.container_status("app")["state"]["waiting"];
  CHECK(waiting["reason"] == "CreateContainerConfigError");
  CHECK(waiting["message"] == "couldn't find key k in ConfigMap ns/cfg");
  for (const auto& call : node.runtime.calls()) CHECK_FALSE(call.starts_with("create_container"));
  REQUIRE(r.requeue_after);
  CHECK(*r.requeue_after == 10s);  // retried: the key may appear
  auto events = node.events.take();
  CHECK(events.back() ==
        "Warning Failed [spec.containers{app}]: Error: couldn't find key k in ConfigMap ns/cfg");
  // Once the key exists the container starts.
  node.objects.put_config_map("ns", "cfg", {{"k", "v"}});
  node.sync();
  CHECK(node.phase() == "Running");
  CHECK(node.runtime.config(node.id("app"))->env == Lines{"X=v"});
}

TEST_CASE("imagePullPolicy Never with a missing image: ErrImageNeverPull") {
  json c = sync_container("app", "local/thing:1");
  c["imagePullPolicy"] = "Never";
  SyncNode node(make_pod("Always", {c}));
  node.sync();
  const std::string msg =
      "Container image \"local/thing:1\" is not present with pull policy of Never";
  CHECK(node.container_status("app")["state"]["waiting"]["reason"] == "ErrImageNeverPull");
  CHECK(node.container_status("app")["state"]["waiting"]["message"] == msg);
  for (const auto& call : node.runtime.calls()) CHECK_FALSE(call.starts_with("pull_image"));
}

TEST_CASE("an image reference that cannot be parsed: InvalidImageName") {
  SyncNode node(make_pod("Always", {sync_container("app", "Bad/Name")}));
  node.sync();
  const std::string msg =
      "Failed to apply default image tag \"Bad/Name\": couldn't parse image name \"Bad/Name\": "
      "invalid reference format";
  CHECK(node.container_status("app")["state"]["waiting"]["reason"] == "InvalidImageName");
  CHECK(node.container_status("app")["state"]["waiting"]["message"] == msg);
  CHECK(node.events.take().front() == "Warning InspectFailed [spec.containers{app}]: " + msg);
}

TEST_CASE("pulls use the pod's imagePullSecrets") {
  SyncNode node(make_pod("Always", {sync_container("app", "reg.example/app:1")}));
  node.pod["spec"]["imagePullSecrets"] = {{{"name", "creds"}}, {{"name", "gone"}}};
  json config = {{"auths", {{"reg.example", {{"username", "alice"}, {"password", "pw"}}}}}};
  node.objects.put_secret("ns", "creds", {{".dockerconfigjson", base64_encode(config.dump())}});
  node.runtime.add_pullable_image("reg.example/app:1");
  node.sync();
  auto calls = node.runtime.calls();
  CHECK(std::find(calls.begin(), calls.end(), "pull_image reg.example/app:1 as alice") !=
        calls.end());
  CHECK(node.phase() == "Running");
  auto events = node.events.take();
  CHECK(std::find(events.begin(), events.end(),
                  "Warning FailedToRetrieveImagePullSecret [spec.containers{app}]: Unable to "
                  "retrieve some image pull secrets (gone); attempting to pull the image may not "
                  "succeed.") != events.end());
}

TEST_CASE("IfNotPresent uses a present image; Always pulls") {
  SyncNode node(
      make_pod("Always", {sync_container("a", "img:1"), sync_container("b", "img:latest")}));
  node.runtime.add_image("img:1");
  node.runtime.add_pullable_image("img:latest");
  node.sync();
  auto events = node.events.take();
  CHECK(std::count(events.begin(), events.end(),
                   "Normal Pulled [spec.containers{a}]: Container image \"img:1\" already present "
                   "on machine") == 1);
  CHECK(std::count(events.begin(), events.end(),
                   "Normal Pulling [spec.containers{b}]: Pulling image \"img:latest\"") == 1);
}

TEST_CASE("a sandbox that is not ready is re-created and the containers started in it") {
  SyncNode node(make_pod("Always", {sync_container("app")}));
  node.runtime.add_image("busybox:1.36");
  node.sync();
  const std::string first = node.runtime.sandboxes().front().id;
  node.runtime.break_sandbox(first);
  node.events.take();
  node.sync();
  auto sandboxes = node.runtime.sandboxes();
  REQUIRE(sandboxes.size() == 2);
  auto running = node.runtime.container("app");
  CHECK(running->sandbox_id != first);
  CHECK(running->state == runtime::ContainerState::kRunning);
  CHECK(running->attempt == 1);
  auto events = node.events.take();
  CHECK(events.front() ==
        "Normal SandboxChanged: Pod sandbox changed, it will be killed and re-created.");
}

TEST_CASE("deletion stops containers within the grace period, preStop first") {
  json c = sync_container("app");
  c["lifecycle"] = {{"preStop", {{"exec", {{"command", {"/bin/sh", "-c", "sleep 1"}}}}}}};
  SyncNode node(make_pod("Always", {c, sync_container("side")}));
  node.pod["spec"]["terminationGracePeriodSeconds"] = 30;
  node.runtime.add_image("busybox:1.36");
  node.sync();
  CHECK(node.phase() == "Running");
  node.events.take();
  const std::string app = node.id("app"), side = node.id("side");

  node.pod["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  node.pod["metadata"]["deletionGracePeriodSeconds"] = 5;
  auto r = node.sync();
  CHECK(r.terminated);
  auto calls = node.runtime.calls();
  auto has = [&](const std::string& call) {
    return std::find(calls.begin(), calls.end(), call) != calls.end();
  };
  CHECK(has("exec_sync " + app + " /bin/sh -c sleep 1 5s"));
  CHECK(has("stop_container " + app + " 5s"));
  CHECK(has("stop_container " + side + " 5s"));
  CHECK(std::find(calls.begin(), calls.end(), "exec_sync " + app + " /bin/sh -c sleep 1 5s") <
        std::find(calls.begin(), calls.end(), "stop_container " + app + " 5s"));
  CHECK(calls.back().starts_with("stop_pod_sandbox"));
  auto events = node.events.take();
  std::sort(events.begin(), events.end());
  CHECK(events == Lines{"Normal Killing [spec.containers{app}]: Stopping container app",
                        "Normal Killing [spec.containers{side}]: Stopping container side"});
  CHECK(node.phase() == "Failed");  // stopped by SIGTERM (143)
  // Nothing is started for a pod being deleted.
  node.sync();
  CHECK(node.runtime.container("app")->id == app);
}

TEST_CASE("a failing postStart hook kills the container: PostStartHookError") {
  json c = sync_container("app");
  c["lifecycle"] = {{"postStart", {{"exec", {{"command", {"sh", "-c", "exit 3"}}}}}}};
  SyncNode node(make_pod("Always", {c}));
  node.runtime.add_image("busybox:1.36");
  runtime::ExecResult failed;
  failed.exit_code = 3;
  failed.stderr_bytes = "oops\n";
  node.runtime.set_exec_result("app", failed);
  node.sync();
  const std::string msg =
      "Exec lifecycle hook ([sh -c exit 3]) for Container \"app\" in Pod \"web_ns(u1)\" failed - "
      "error: command 'sh -c exit 3' exited with 3: oops\n, message: \"oops\\n\"";
  const json waiting = node.container_status("app")["state"]["waiting"];
  CHECK(waiting["reason"] == "PostStartHookError");
  CHECK(waiting["message"] == msg);
  CHECK(node.runtime.container("app")->state == runtime::ContainerState::kExited);
  auto events = node.events.take();
  CHECK(std::find(events.begin(), events.end(),
                  "Warning FailedPostStartHook [spec.containers{app}]: " + msg) != events.end());
  CHECK(events.back() == "Normal Killing [spec.containers{app}]: FailedPostStartHook");
}

TEST_CASE("an httpGet postStart hook: any answer will do, no answer kills the container") {
  json c = sync_container("app");
  c["ports"] = {{{"name", "http"}, {"containerPort", 8080}}};
  c["lifecycle"] = {{"postStart", {{"httpGet", {{"path", "/started"}, {"port", "http"}}}}}};
  {
    SyncNode node(make_pod("Always", {c}));
    node.runtime.add_image("busybox:1.36");
    node.sync();
    const std::string ip = node.pod["status"]["podIP"];
    const std::string msg =
        "HTTP lifecycle hook (/started) for Container \"app\" in Pod \"web_ns(u1)\" failed - "
        "error: Get \"http://" +
        ip + ":8080/started\": dial tcp: connect: connection refused";
    const json waiting = node.container_status("app")["state"]["waiting"];
    CHECK(waiting["reason"] == "PostStartHookError");
    CHECK(waiting["message"] == msg);
    auto events = node.events.take();
    CHECK(std::find(events.begin(), events.end(),
                    "Warning FailedPostStartHook [spec.containers{app}]: " + msg) != events.end());
  }
  {
    SyncNode node(make_pod("Always", {c}));
    node.runtime.add_image("busybox:1.36");
    // The fake runtime hands out pod IPs in order: the first sandbox gets this one.
    node.network.set("10.42.0.1", 8080, 500);  // upstream does not look at a hook's status
    node.sync();
    REQUIRE(node.pod["status"]["podIP"] == "10.42.0.1");
    CHECK(node.container_status("app")["state"].contains("running"));
    for (const auto& e : node.events.take())
      CHECK(e.find("FailedPostStartHook") == std::string::npos);
  }
}

TEST_CASE("a readiness probe decides ready; the sync comes back when the next probe is due") {
  json c = sync_container("app");
  c["ports"] = {{{"name", "http"}, {"containerPort", 8080}}};
  c["readinessProbe"] = {{"httpGet", {{"path", "/healthz"}, {"port", "http"}}},
                         {"periodSeconds", 5}};
  SyncNode node(make_pod("Always", {c}));
  node.runtime.add_image("busybox:1.36");
  auto r = node.sync();
  const std::string ip = node.pod["status"]["podIP"];
  CHECK(node.container_status("app")["ready"] == false);
  CHECK(node.container_status("app")["started"] == true);
  const json ready = [&] {
    for (const auto& cond : node.pod["status"]["conditions"]) {
      if (cond["type"] == "Ready") return cond;
    }
    return json();
  }();
  CHECK(ready["message"] == "containers with unready status: [app]");
  CHECK(node.events.take().back() ==
        "Warning Unhealthy [spec.containers{app}]: Readiness probe failed: Get \"http://" + ip +
            ":8080/healthz\": dial tcp: connect: connection refused");
  REQUIRE(r.requeue_after);
  CHECK(*r.requeue_after == 5s);

  node.network.set(ip, 8080, 200);
  node.clock.advance(4s);
  node.sync();  // not due yet
  CHECK(node.container_status("app")["ready"] == false);
  node.clock.advance(1s);
  node.sync();
  CHECK(node.container_status("app")["ready"] == true);
  CHECK(node.phase() == "Running");
}

TEST_CASE("probe thresholds: initialDelaySeconds, successThreshold, failureThreshold, timeout") {
  json c = sync_container("app");
  c["readinessProbe"] = {{"exec", {{"command", {"check"}}}},
                         {"initialDelaySeconds", 3},
                         {"periodSeconds", 1},
                         {"successThreshold", 2},
                         {"failureThreshold", 2},
                         {"timeoutSeconds", 4}};
  SyncNode node(make_pod("Always", {c}));
  node.runtime.add_image("busybox:1.36");
  auto probes_run = [&] {
    int n = 0;
    for (const auto& call : node.runtime.calls()) n += call.rfind("exec_sync ", 0) == 0;
    return n;
  };
  auto r = node.sync();
  CHECK(probes_run() == 0);  // not before the initial delay
  CHECK(node.container_status("app")["ready"] == false);
  REQUIRE(r.requeue_after);
  CHECK(*r.requeue_after == 3s);
  node.clock.advance(3s);
  node.sync();
  CHECK(probes_run() == 1);
  CHECK(node.runtime.calls().back() == "exec_sync " + node.id("app") + " check 4s");
  CHECK(node.container_status("app")["ready"] == false);  // one success of two
  node.clock.advance(1s);
  node.sync();
  CHECK(node.container_status("app")["ready"] == true);
  // Failures: one is not enough, the second turns it unready.
  runtime::ExecResult bad;
  bad.exit_code = 1;
  node.runtime.set_exec_result("app", bad);
  node.clock.advance(1s);
  node.sync();
  CHECK(node.container_status("app")["ready"] == true);
  node.clock.advance(1s);
  node.sync();
  CHECK(node.container_status("app")["ready"] == false);
  // Back to success: two in a row again before it is ready.
  node.runtime.set_exec_result("app", {});
  node.clock.advance(1s);
  node.sync();
  CHECK(node.container_status("app")["ready"] == false);
  node.clock.advance(1s);
  node.sync();
  CHECK(node.container_status("app")["ready"] == true);
}

TEST_CASE("a failing liveness probe kills the container, which is restarted") {
  json c = sync_container("app");
  c["livenessProbe"] = {
      {"exec", {{"command", {"check"}}}}, {"periodSeconds", 1}, {"failureThreshold", 2}};
  SyncNode node(make_pod("Always", {c}));
  node.runtime.add_image("busybox:1.36");
  node.sync();
  CHECK(node.container_status("app")["ready"] == true);  // no readiness probe
  runtime::ExecResult bad;
  bad.exit_code = 1;
  bad.stdout_bytes = "unhealthy";
  node.runtime.set_exec_result("app", bad);
  node.events.take();
  node.clock.advance(1s);
  node.sync();  // first failure: below the threshold
  CHECK(node.runtime.container("app")->state == runtime::ContainerState::kRunning);
  node.clock.advance(1s);
  node.sync();
  CHECK(node.runtime.container("app")->state == runtime::ContainerState::kExited);
  auto events = node.events.take();
  CHECK(events[0] == "Warning Unhealthy [spec.containers{app}]: Liveness probe failed: unhealthy");
  CHECK(events.back() ==
        "Normal Killing [spec.containers{app}]: Container app failed liveness probe, will be "
        "restarted");
  node.runtime.set_exec_result("app", {});
  node.sync();
  CHECK(node.runtime.container("app")->attempt == 1);
  CHECK(node.runtime.container("app")->state == runtime::ContainerState::kRunning);
}

TEST_CASE("a grpc liveness probe: NOT_SERVING kills the container, SERVING keeps it") {
  json c = sync_container("app");
  c["livenessProbe"] = {{"grpc", {{"port", 9000}, {"service", "app"}}},
                        {"periodSeconds", 1},
                        {"failureThreshold", 1}};
  SyncNode node(make_pod("Always", {c}));
  node.runtime.add_image("busybox:1.36");
  const std::string ip = "10.42.0.1";  // the fake runtime's first pod IP
  node.network.set(ip, 9000, grpc_health::kServing);
  node.sync();
  REQUIRE(node.pod["status"]["podIP"] == ip);
  node.events.take();
  node.clock.advance(1s);
  node.sync();
  CHECK(node.runtime.container("app")->state == runtime::ContainerState::kRunning);
  CHECK(node.events.take().empty());
  node.network.set(ip, 9000, grpc_health::kNotServing);
  node.clock.advance(1s);
  node.sync();
  CHECK(node.runtime.container("app")->state == runtime::ContainerState::kExited);
  auto events = node.events.take();
  REQUIRE_FALSE(events.empty());
  CHECK(events[0] ==
        "Warning Unhealthy [spec.containers{app}]: Liveness probe failed: service unhealthy "
        "(responded with \"NOT_SERVING\")");
}

TEST_CASE("until the startup probe succeeds the container is not started") {
  json c = sync_container("app");
  c["startupProbe"] = {{"tcpSocket", {{"port", 9000}}}, {"periodSeconds", 2}};
  c["livenessProbe"] = {{"exec", {{"command", {"check"}}}}};
  SyncNode node(make_pod("Always", {c}));
  node.runtime.add_image("busybox:1.36");
  runtime::ExecResult bad;
  bad.exit_code = 1;
  node.runtime.set_exec_result("app", bad);  // liveness would fail: it must not run yet
  node.sync();
  CHECK(node.container_status("app")["started"] == false);
  CHECK(node.container_status("app")["ready"] == false);
  for (const auto& call : node.runtime.calls()) CHECK_FALSE(call.starts_with("exec_sync"));
  node.network.set(node.pod["status"]["podIP"], 9000, 1);
  node.runtime.set_exec_result("app", {});
  node.clock.advance(2s);
  node.sync();
  CHECK(node.container_status("app")["started"] == true);
  CHECK(node.container_status("app")["ready"] == true);
}

TEST_CASE("a spec change of a running container restarts it") {
  SyncNode node(make_pod("Always", {sync_container("app", "img:1")}));
  node.runtime.add_image("img:1");
  node.runtime.add_image("img:2");
  node.sync();
  const std::string old = node.id("app");
  node.pod["spec"]["containers"][0]["image"] = "img:2";
  node.sync();
  auto now = node.runtime.container("app");
  CHECK(now->id != old);
  CHECK(now->image == "img:2");
  CHECK(now->state == runtime::ContainerState::kRunning);
}

TEST_CASE("a failing sandbox creation is an error with an event") {
  SyncNode node(make_pod("Always", {sync_container("app")}));
  node.runtime.fail_sandbox_creation("no network");
  auto r = node.sync();
  CHECK_FALSE(r.error.is_ok());
  CHECK(node.events.take() ==
        Lines{"Warning FailedCreatePodSandBox: Failed to create pod sandbox: no network"});
  CHECK(node.phase() == "Pending");
}

}  // namespace
}  // namespace k3c::kubelet
