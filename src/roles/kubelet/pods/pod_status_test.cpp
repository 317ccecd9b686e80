// Pod status from runtime state: container states and reasons, phase by restart policy,
// conditions and their transition times, IPs, QoS.
#include "roles/kubelet/pods/pod_status.h"

#include <catch2/catch.hpp>

#include "core/ids.h"
#include "roles/kubelet/pods/labels.h"

namespace k3c::kubelet {
namespace {

using nlohmann::json;
using runtime::ContainerState;
using namespace std::chrono_literals;

const runtime::WallTime kT0 = std::chrono::system_clock::from_time_t(1'800'000'000);

json status_pod(const std::string& policy = "Always", json inits = json::array()) {
  json p = {{"metadata", {{"name", "p"}, {"namespace", "ns"}, {"uid", "u1"}}},
            {"spec",
             {{"restartPolicy", policy},
              {"containers",
               {{{"name", "b"}, {"image", "img-b"}}, {{"name", "a"}, {"image", "img-a"}}}}}},
            {"status", {{"phase", "Pending"}}}};
  if (!inits.empty()) p["spec"]["initContainers"] = inits;
  return p;
}

struct State {
  PodRuntimeState s;
  int next = 0;
  State() {
    runtime::SandboxStatus sb;
    sb.id = "sb1";
    sb.state = runtime::SandboxState::kReady;
    sb.ip = "10.42.0.9";
    sb.config.pod_uid = "u1";
    sb.created_at = kT0;
    s.sandboxes.push_back(sb);
  }
  // Adds an instance (newest first, as pod_runtime_state() sorts).
  State& add(const std::string& name, ContainerState st, int exit = 0, uint32_t attempt = 0,
             std::string reason = "") {
    runtime::ContainerStatus c;
    c.id = "c" + std::to_string(++next);
    c.sandbox_id = "sb1";
    c.name = name;
    c.attempt = attempt;
    c.state = st;
    c.created_at = kT0 + std::chrono::seconds(next);
    c.started_at = c.created_at;
    if (st == ContainerState::kExited) c.finished_at = c.created_at + 1s;
    c.exit_code = exit;
    c.reason =
        reason.empty() && st == ContainerState::kExited ? (exit ? "Error" : "Completed") : reason;
    c.image = "docker.io/library/" + name;
    c.image_ref = "sha256:" + name;
    c.labels[labels::kPodUid] = "u1";
    s.containers.insert(s.containers.begin(), c);
    return *this;
  }
};

json status_of(const json& p, const State& st, const WaitingReasons& reasons = {},
               bool terminal = false, runtime::WallTime now = kT0 + 100s) {
  NodeFacts node{"n1", {"192.168.1.2"}, {}};
  return generate_pod_status({p, st.s, reasons, node, now, terminal, nullptr});
}

json condition(const json& status, const std::string& type) {
  for (const auto& c : status["conditions"]) {
    if (c["type"] == type) return c;
  }
  return json();
}

TEST_CASE("a pod whose containers are being created is Pending and not ready") {
  State st;
  json s = status_of(status_pod(), st);
  CHECK(s["phase"] == "Pending");
  REQUIRE(s["containerStatuses"].size() == 2);
  CHECK(s["containerStatuses"][0]["name"] == "a");  // sorted by name
  CHECK(s["containerStatuses"][0]["state"]["waiting"]["reason"] == "ContainerCreating");
  CHECK(s["containerStatuses"][0]["ready"] == false);
  CHECK(condition(s, "PodReadyToStartContainers")["status"] == "True");
  CHECK(condition(s, "Ready")["status"] == "False");
  CHECK(condition(s, "Ready")["reason"] == "ContainersNotReady");
  CHECK(condition(s, "Ready")["message"] == "containers with unready status: [b a]");
  CHECK(condition(s, "PodScheduled")["status"] == "True");
  CHECK(s["podIP"] == "10.42.0.9");
  CHECK(s["podIPs"] == json::array({{{"ip", "10.42.0.9"}}}));
  CHECK(s["hostIP"] == "192.168.1.2");
  CHECK(s["qosClass"] == "BestEffort");
  CHECK(s["startTime"] == rfc3339(kT0 + 100s));
}

TEST_CASE("running containers: Running, ready, k3c:// ids; transition times kept") {
  State st;
  st.add("a", ContainerState::kRunning).add("b", ContainerState::kRunning);
  json p = status_pod();
  json s = status_of(p, st);
  CHECK(s["phase"] == "Running");
  const json& a = s["containerStatuses"][0];
  CHECK(a["state"]["running"]["startedAt"] == rfc3339(kT0 + 1s));
  CHECK(a["containerID"] == "k3c://c1");
  CHECK(a["image"] == "docker.io/library/a");
  CHECK(a["imageID"] == "sha256:a");
  CHECK(a["ready"] == true);
  CHECK(a["started"] == true);
  CHECK(condition(s, "Ready")["status"] == "True");
  CHECK(condition(s, "ContainersReady")["status"] == "True");
  // A later status with nothing changed keeps times.
  p["status"] = s;
  json again = status_of(p, st, {}, false, kT0 + 500s);
  CHECK(again == s);
}

TEST_CASE("a condition's lastTransitionTime moves only when its status flips") {
  State st;
  json p = status_pod();
  json first = status_of(p, st, {}, false, kT0 + 10s);
  CHECK(condition(first, "Ready")["lastTransitionTime"] == rfc3339(kT0 + 10s));
  p["status"] = first;
  st.add("a", ContainerState::kRunning).add("b", ContainerState::kRunning);
  json second = status_of(p, st, {}, false, kT0 + 20s);
  CHECK(condition(second, "Ready")["lastTransitionTime"] == rfc3339(kT0 + 20s));
  CHECK(condition(second, "PodScheduled")["lastTransitionTime"] == rfc3339(kT0 + 10s));
  CHECK(second["startTime"] == rfc3339(kT0 + 10s));
}

TEST_CASE("phase by restart policy when containers exit") {
  SECTION("all exit 0 with Never or OnFailure: Succeeded; with Always: Running") {
    State st;
    st.add("a", ContainerState::kExited, 0).add("b", ContainerState::kExited, 0);
    CHECK(status_of(status_pod("Never"), st)["phase"] == "Succeeded");
    CHECK(status_of(status_pod("OnFailure"), st)["phase"] == "Succeeded");
    CHECK(status_of(status_pod("Always"), st)["phase"] == "Running");
    json s = status_of(status_pod("Never"), st);
    CHECK(s["containerStatuses"][0]["state"]["terminated"]["reason"] == "Completed");
    CHECK(condition(s, "Ready")["reason"] == "PodCompleted");
  }
  SECTION("a failure with Never: Failed; with OnFailure: Running (restarting)") {
    State st;
    st.add("a", ContainerState::kExited, 0).add("b", ContainerState::kExited, 2);
    json s = status_of(status_pod("Never"), st);
    CHECK(s["phase"] == "Failed");
    CHECK(s["containerStatuses"][1]["state"]["terminated"]["exitCode"] == 2);
    CHECK(s["containerStatuses"][1]["state"]["terminated"]["reason"] == "Error");
    CHECK(condition(s, "Ready")["reason"] == "PodFailed");
    CHECK(status_of(status_pod("OnFailure"), st)["phase"] == "Running");
  }
  SECTION("one still running: Running") {
    State st;
    st.add("a", ContainerState::kExited, 0).add("b", ContainerState::kRunning);
    CHECK(status_of(status_pod("Never"), st)["phase"] == "Running");
  }
  SECTION("a terminal phase is never left") {
    State st;
    st.add("a", ContainerState::kRunning).add("b", ContainerState::kRunning);
    json p = status_pod("Never");
    p["status"]["phase"] = "Succeeded";
    CHECK(status_of(p, st)["phase"] == "Succeeded");
  }
  SECTION("a deleted pod whose containers were stopped ends Failed or Succeeded") {
    State st;
    st.add("a", ContainerState::kExited, 137).add("b", ContainerState::kExited, 0);
    CHECK(status_of(status_pod("Always"), st, {}, true)["phase"] == "Failed");
    State none;
    CHECK(status_of(status_pod("Always"), none, {}, true)["phase"] == "Failed");
  }
}

TEST_CASE("crash loop: waiting CrashLoopBackOff with the last run in lastState") {
  State st;
  st.add("a", ContainerState::kRunning)
      .add("b", ContainerState::kExited, 1, 0)
      .add("b", ContainerState::kExited, 1, 1);
  WaitingReasons reasons = {
      {"b", {"CrashLoopBackOff", "back-off 10s restarting failed container=b pod=p_ns(u1)"}}};
  json s = status_of(status_pod(), st, reasons);
  const json& b = s["containerStatuses"][1];
  CHECK(b["state"]["waiting"]["reason"] == "CrashLoopBackOff");
  CHECK(b["state"]["waiting"]["message"] ==
        "back-off 10s restarting failed container=b pod=p_ns(u1)");
  CHECK(b["lastState"]["terminated"]["exitCode"] == 1);
  CHECK(b["lastState"]["terminated"]["containerID"] == "k3c://c3");
  CHECK(b["restartCount"] == 1);
  CHECK(b["ready"] == false);
  CHECK(s["phase"] == "Running");
  // With Never the reason does not apply: the container is not restarted.
  json never = status_of(status_pod("Never"), st, reasons);
  CHECK(never["containerStatuses"][1]["state"].contains("terminated"));
}

TEST_CASE("a container that could not be created waits with the sync's reason") {
  State st;
  WaitingReasons reasons = {{"a", {"CreateContainerConfigError", "configmap \"x\" not found"}}};
  json s = status_of(status_pod(), st, reasons);
  CHECK(s["containerStatuses"][0]["state"]["waiting"]["reason"] == "CreateContainerConfigError");
  CHECK(s["containerStatuses"][0]["state"]["waiting"]["message"] == "configmap \"x\" not found");
  CHECK(s["containerStatuses"][1]["state"]["waiting"]["reason"] == "ContainerCreating");
  CHECK(s["phase"] == "Pending");
}

TEST_CASE("init containers: PodInitializing, Initialized, and a failed init with Never") {
  json inits = {{{"name", "i1"}, {"image", "x"}}, {{"name", "i2"}, {"image", "x"}}};
  SECTION("first init running") {
    State st;
    st.add("i1", ContainerState::kRunning);
    json s = status_of(status_pod("Always", inits), st);
    CHECK(s["phase"] == "Pending");
    CHECK(s["initContainerStatuses"][0]["name"] == "i1");
    CHECK(s["initContainerStatuses"][1]["state"]["waiting"]["reason"] == "PodInitializing");
    CHECK(s["containerStatuses"][0]["state"]["waiting"]["reason"] == "PodInitializing");
    CHECK(condition(s, "Initialized")["status"] == "False");
    CHECK(condition(s, "Initialized")["reason"] == "ContainersNotInitialized");
    CHECK(condition(s, "Initialized")["message"] == "containers with incomplete status: [i1 i2]");
  }
  SECTION("all inits done, apps running") {
    State st;
    st.add("i1", ContainerState::kExited, 0)
        .add("i2", ContainerState::kExited, 0)
        .add("a", ContainerState::kRunning)
        .add("b", ContainerState::kRunning);
    json s = status_of(status_pod("Always", inits), st);
    CHECK(s["phase"] == "Running");
    CHECK(s["initContainerStatuses"][1]["ready"] == true);
    CHECK(condition(s, "Initialized")["status"] == "True");
  }
  SECTION("an init container fails with Never: Failed") {
    State st;
    st.add("i1", ContainerState::kExited, 3);
    json s = status_of(status_pod("Never", inits), st);
    CHECK(s["phase"] == "Failed");
    CHECK(status_of(status_pod("OnFailure", inits), st)["phase"] == "Pending");
  }
}

}  // namespace
}  // namespace k3c::kubelet
