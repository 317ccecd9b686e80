// API container statuses (see container_statuses.h).
#include "roles/kubelet/pods/container_statuses.h"

#include <algorithm>

#include "core/ids.h"
#include "roles/kubelet/pods/pod_phase.h"
#include "roles/kubelet/pods/restart_rules.h"
#include "roles/kubelet/pods/termination_message.h"

namespace k3c::kubelet {

using nlohmann::json;
using runtime::ContainerState;

namespace {

void set_time(json& into, const char* field, runtime::WallTime t) {
  if (t.time_since_epoch().count() != 0) into[field] = rfc3339(t);
}

}  // namespace

json api_container_state(const runtime::ContainerStatus& c) {
  switch (c.state) {
    case ContainerState::kRunning: {
      json running = json::object();
      set_time(running, "startedAt", c.started_at);
      return {{"running", running}};
    }
    case ContainerState::kExited: {
      json t = {{"exitCode", c.exit_code}};
      if (!c.reason.empty()) t["reason"] = c.reason;
      if (!c.message.empty()) t["message"] = c.message;
      // Always both, as upstream's (CRI times are Unix nanoseconds): a process that never ran
      // (StartError) shows startedAt 1970-01-01T00:00:00Z.
      t["startedAt"] = rfc3339(c.started_at);
      t["finishedAt"] = rfc3339(c.finished_at);
      t["containerID"] = kContainerIdPrefix + c.id;
      return {{"terminated", t}};
    }
    default:
      // Created but not started, or unknown: waiting, without a reason (as upstream).
      return {{"waiting", json::object()}};
  }
}

json api_container_statuses(const json& pod, bool init, const PodRuntimeState& state,
                            const WaitingReasons& reasons, const HealthByName& health) {
  const json spec = pod.value("spec", json::object());
  const json containers = spec.value(init ? "initContainers" : "containers", json::array());
  const bool has_init = !spec.value("initContainers", json::array()).empty();
  const json old = pod.value("status", json::object())
                       .value(init ? "initContainerStatuses" : "containerStatuses", json::array());
  json out = json::array();
  for (const auto& container : containers) {
    const std::string name = container.value("name", "");
    const auto instances = state.instances(name);
    json status = {
        {"name", name},
        {"image", container.value("image", "")},
        {"imageID", ""},
        {"state", {{"waiting", {{"reason", has_init ? "PodInitializing" : "ContainerCreating"}}}}},
        {"lastState", json::object()},
        {"ready", false},
        {"restartCount", 0},
        {"started", false}};
    if (const json* previous = find_status(old, name); previous && instances.empty()) {
      // Nothing in the runtime (yet, or any more): keep what was reported.
      if (previous->contains("state") && (*previous)["state"].contains("terminated")) {
        status = *previous;
      } else {
        status["restartCount"] = previous->value("restartCount", 0);
        status["lastState"] = previous->value("lastState", json::object());
      }
    }
    // An exited instance's state carries its termination message after the runtime's own
    // ("<runtime message>: <termination message>"), as upstream.
    auto state_of = [&](const runtime::ContainerStatus& c) {
      const std::string message = termination_message(container, c);
      if (message.empty()) return api_container_state(c);
      runtime::ContainerStatus with = c;
      with.message = c.message.empty() ? message : c.message + ": " + message;
      return api_container_state(with);
    };
    if (!instances.empty()) {
      const auto& c = *instances[0];
      status["containerID"] = kContainerIdPrefix + c.id;
      if (!c.image.empty()) status["image"] = c.image;
      status["imageID"] = c.image_ref;
      status["restartCount"] = c.attempt;
      status["state"] = state_of(c);
      if (instances.size() > 1 && instances[1]->state == ContainerState::kExited) {
        status["lastState"] = state_of(*instances[1]);
      }
      const bool running = c.state == ContainerState::kRunning;
      auto h = health.find(name);
      const ContainerHealth probes = h == health.end() ? ContainerHealth{} : h->second;
      status["started"] = running && probes.started;
      if (init && !is_restartable_init_container(container)) {
        status["ready"] = c.state == ContainerState::kExited && c.exit_code == 0;
      } else {
        status["ready"] = running && probes.started && probes.ready;
      }
    }
    // The reason the last sync could not (re)start it.
    auto reason = reasons.find(name);
    const auto* latest = instances.empty() ? nullptr : instances[0];
    if (reason != reasons.end() && should_restart_container(pod, container, latest)) {
      if (status["state"].contains("terminated")) status["lastState"] = status["state"];
      json waiting = {{"reason", reason->second.reason}};
      if (!reason->second.message.empty()) waiting["message"] = reason->second.message;
      status["state"] = {{"waiting", waiting}};
      status["ready"] = false;
      status["started"] = false;
    }
    out.push_back(std::move(status));
  }
  if (!init) {
    std::sort(out.begin(), out.end(), [](const json& a, const json& b) {
      return a.value("name", "") < b.value("name", "");
    });
  }
  return out;
}

}  // namespace k3c::kubelet
