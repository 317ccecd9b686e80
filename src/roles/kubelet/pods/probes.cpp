// Container probes (see probes.h).
#include "roles/kubelet/pods/probes.h"

#include <algorithm>
#include <set>

namespace k3c::kubelet {

using nlohmann::json;

namespace {

int64_t int_field(const json& probe, const char* name, int64_t fallback) {
  auto it = probe.find(name);
  return it != probe.end() && it->is_number_integer() && it->get<int64_t>() > 0 ? it->get<int64_t>()
                                                                                : fallback;
}

}  // namespace

int container_port(const json& value, const json& container) {
  if (value.is_number_integer()) return value.get<int>();
  if (value.is_string()) {
    for (const auto& p : container.value("ports", json::array())) {
      if (p.value("name", "") == value.get<std::string>()) return p.value("containerPort", 0);
    }
    const std::string text = value.get<std::string>();
    if (!text.empty() && std::all_of(text.begin(), text.end(), ::isdigit)) return std::stoi(text);
  }
  return 0;
}

namespace {

const char* title(const std::string& kind) {
  if (kind == "startup") return "Startup";
  if (kind == "liveness") return "Liveness";
  return "Readiness";
}

}  // namespace

ProbeOutcome ProbeTracker::run(const json& probe, const std::string& container_id,
                               const ProbeTarget& target, const json& container) {
  const auto timeout = std::chrono::seconds(int_field(probe, "timeoutSeconds", 1));
  if (probe.contains("exec")) {
    std::vector<std::string> cmd;
    for (const auto& s : probe["exec"].value("command", json::array())) {
      if (s.is_string()) cmd.push_back(s.get<std::string>());
    }
    auto r = runtime_.exec_sync(container_id, cmd, timeout);
    if (!r.is_ok()) return {false, r.status().message()};
    if (r->timed_out) {
      return {false, "command timed out after " + std::to_string(timeout.count()) + "s"};
    }
    return {r->exit_code == 0, r->stdout_bytes + r->stderr_bytes};
  }
  if (probe.contains("tcpSocket")) {
    const json& t = probe["tcpSocket"];
    return network_.tcp(t.contains("host") ? ProbeTarget(t.value("host", "")) : target,
                        container_port(t.value("port", json()), container), timeout);
  }
  if (probe.contains("httpGet")) {
    const json& h = probe["httpGet"];
    std::string scheme = h.value("scheme", "HTTP");
    return network_.http_get(scheme, h.contains("host") ? ProbeTarget(h.value("host", "")) : target,
                             container_port(h.value("port", json()), container),
                             h.value("path", "/"), h.value("httpHeaders", json::array()), timeout);
  }
  if (probe.contains("grpc")) {
    const json& g = probe["grpc"];
    const json& service = g.contains("service") ? g["service"] : json();
    return network_.grpc(target, g.value("port", 0),
                         service.is_string() ? service.get<std::string>() : "", timeout);
  }
  return {false, "the probe has no handler (exec, httpGet, tcpSocket or grpc)"};
}

std::optional<bool> ProbeTracker::step(const std::string& kind, const json& probe,
                                       const json& container,
                                       const runtime::ContainerStatus& instance,
                                       const ProbeTarget& target, std::vector<ProbeEvent>& events,
                                       std::optional<Clock::Duration>& due) {
  const std::string key = instance.id + "/" + kind;
  const auto now = clock_.wall_now();
  const auto period = std::chrono::seconds(int_field(probe, "periodSeconds", 10));
  const auto first =
      instance.started_at + std::chrono::seconds(int_field(probe, "initialDelaySeconds", 0));
  State state;
  {
    std::lock_guard lock(mu_);
    state = states_[key];
  }
  const auto next =
      state.last_run.time_since_epoch().count() == 0 ? first : state.last_run + period;
  if (now < next) {
    const Clock::Duration wait = next - now;
    if (!due || wait < *due) due = wait;
    return state.has_result ? std::optional<bool>(state.result) : std::nullopt;
  }
  ProbeOutcome outcome = run(probe, instance.id, target, container);
  state.last_run = now;
  if (outcome.success) {
    state.failures = 0;
    ++state.successes;
    if (state.successes >= int_field(probe, "successThreshold", 1)) {
      state.result = true;
      state.has_result = true;
    }
  } else {
    state.successes = 0;
    ++state.failures;
    events.push_back({"Unhealthy", std::string(title(kind)) + " probe failed: " + outcome.output});
    if (state.failures >= int_field(probe, "failureThreshold", 3)) {
      state.result = false;
      state.has_result = true;
    }
  }
  {
    std::lock_guard lock(mu_);
    states_[key] = state;
  }
  if (!due || period < *due) due = period;
  return state.has_result ? std::optional<bool>(state.result) : std::nullopt;
}

ProbeView ProbeTracker::evaluate(const json& container, const runtime::ContainerStatus& instance,
                                 const ProbeTarget& target, std::vector<ProbeEvent>& events) {
  ProbeView view;
  const std::string name = container.value("name", "");
  if (container.contains("startupProbe")) {
    auto r = step("startup", container["startupProbe"], container, instance, target, events,
                  view.next_due);
    if (r && !*r) {
      view.kill_message = "Container " + name + " failed startup probe, will be restarted";
    }
    if (!r || !*r) {
      view.started = false;
      view.ready = false;
      return view;
    }
  }
  if (container.contains("livenessProbe")) {
    auto r = step("liveness", container["livenessProbe"], container, instance, target, events,
                  view.next_due);
    if (r && !*r) {
      view.kill_message = "Container " + name + " failed liveness probe, will be restarted";
    }
  }
  if (container.contains("readinessProbe")) {
    auto r = step("readiness", container["readinessProbe"], container, instance, target, events,
                  view.next_due);
    view.ready = r.value_or(false);
  }
  return view;
}

void ProbeTracker::retain(const std::vector<std::string>& live) {
  std::set<std::string> ids(live.begin(), live.end());
  std::lock_guard lock(mu_);
  std::erase_if(states_,
                [&](const auto& kv) { return !ids.count(kv.first.substr(0, kv.first.find('/'))); });
}

}  // namespace k3c::kubelet
