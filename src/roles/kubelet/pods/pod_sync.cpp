// One pod's sync (see pod_sync.h).
#include "roles/kubelet/pods/pod_sync.h"

#include <algorithm>
#include <future>

#include "roles/kubelet/pods/command.h"
#include "roles/kubelet/pods/container_config.h"
#include "roles/kubelet/pods/container_env.h"
#include "roles/kubelet/pods/expansion.h"
#include "roles/kubelet/pods/image_puller.h"
#include "roles/kubelet/pods/labels.h"
#include "roles/kubelet/pods/lifecycle_hooks.h"
#include "roles/kubelet/pods/pod_status.h"
#include "roles/kubelet/pods/restart_rules.h"
#include "roles/kubelet/pods/service_env.h"

namespace k3c::kubelet {

using nlohmann::json;
using runtime::ContainerState;
using runtime::ContainerStatus;

namespace {

constexpr int64_t kMinimumGraceSeconds = 2;
constexpr Clock::Duration kRetry = std::chrono::seconds(10);
constexpr Clock::Duration kResync = std::chrono::minutes(1);
// How soon a pod whose volumes could not be set up is synced again.
constexpr Clock::Duration kMountRetry = std::chrono::seconds(5);
// Upstream waits for a postStart hook without a limit; a bound keeps a worker from hanging.
constexpr std::chrono::seconds kPostStartTimeout{120};

std::string meta(const json& pod, const char* field) {
  return pod.value("metadata", json::object()).value(field, "");
}

std::string field_path(const json& container, bool init) {
  return std::string(init ? "spec.initContainers{" : "spec.containers{") +
         container.value("name", "") + "}";
}

// The container (or init container) of the spec with this name; null when none.
json container_spec(const json& pod, const std::string& name) {
  const auto spec = pod.find("spec");
  if (spec == pod.end()) return json();
  for (const char* list : {"containers", "initContainers"}) {
    auto it = spec->find(list);
    if (it == spec->end() || !it->is_array()) continue;
    for (const auto& c : *it) {
      if (c.value("name", "") == name) return c;
    }
  }
  return json();
}

void earliest(std::optional<Clock::Duration>& into, Clock::Duration d) {
  d = std::max<Clock::Duration>(d, std::chrono::milliseconds(1));
  if (!into || d < *into) into = d;
}

// One sync's work and what it found out.
class Syncer {
 public:
  Syncer(const json& pod, SyncContext& ctx) : pod_(pod), ctx_(ctx) {}

  SyncResult run();

 private:
  Status observe();
  bool kill_pod(int64_t grace_seconds);
  void stop_container(const json* spec, const ContainerStatus& c, int64_t grace_seconds);
  Status ensure_sandbox();
  // True when the init containers are done (app containers may run).
  bool sync_init_containers();
  void sync_app_containers();
  // Runs the due probes of running containers, kills those that failed startup or
  // liveness, and returns what the probes say for the status.
  HealthByName run_probes();
  // Where probes and hooks reach the pod: its IP, the node's for hostNetwork pods, or
  // 127.0.0.1 in its network namespace while it has loopback only (probes.h ProbeTarget).
  ProbeTarget network_target() const;
  HookNetwork hook_network() const;
  // Removes exited instances older than the newest two of each container (the current one
  // and the one lastState shows) and old stopped sandboxes left empty, as upstream's
  // container GC keeps one dead instance per container: restarts stay bounded.
  void prune();
  // Starts `container` unless its restart is backed off; true when it now runs.
  bool start(const json& container, bool init);
  int64_t grace_seconds() const;
  // True (with the CrashLoopBackOff reason and event) while the restart is backed off.
  bool backed_off(const json& container, const std::string& path, const ContainerStatus* last);
  // The runtime config, or nullopt after recording why it cannot be built.
  std::optional<runtime::ContainerConfig> config_for(const json& container, bool init,
                                                     const runtime::ImageSummary& image,
                                                     uint32_t attempt);
  // Records a failure to start: the waiting reason and a Warning "Failed" "Error: ..." event
  // (with `event_message`, the message by default).
  void fail(const json& container, bool init, std::string reason, std::string message,
            std::string event_message = "");

  const json& pod_;
  SyncContext& ctx_;
  PodRuntimeState state_;
  SyncResult result_;
};

Status Syncer::observe() {
  auto state = observe_pod(ctx_.runtime, meta(pod_, "uid"));
  if (!state.is_ok()) return state.status();
  state_ = std::move(*state);
  return Status::ok();
}

int64_t Syncer::grace_seconds() const {
  if (ctx_.grace_period_override)
    return std::max(*ctx_.grace_period_override, kMinimumGraceSeconds);
  int64_t grace = 30;
  const json spec = pod_.value("spec", json::object());
  if (auto g = spec.find("terminationGracePeriodSeconds"); g != spec.end() && g->is_number()) {
    grace = g->get<int64_t>();
  }
  const json m = pod_.value("metadata", json::object());
  if (auto g = m.find("deletionGracePeriodSeconds"); g != m.end() && g->is_number()) {
    grace = g->get<int64_t>();
  }
  return std::max(grace, kMinimumGraceSeconds);
}

void Syncer::stop_container(const json* spec, const ContainerStatus& c, int64_t grace_seconds) {
  ctx_.events.record(pod_, spec ? field_path(*spec, false) : "", "Normal", "Killing",
                     "Stopping container " + c.name);
  const auto started = ctx_.clock.now();
  if (spec) {
    const json lifecycle = spec->value("lifecycle", json::object());
    if (lifecycle.contains("preStop")) {
      HookOutcome hook = run_lifecycle_hook(ctx_.runtime, c.id, pod_, *spec, lifecycle["preStop"],
                                            std::chrono::seconds(grace_seconds), hook_network());
      if (!hook.ok) {
        ctx_.events.record(pod_, field_path(*spec, false), "Warning", "FailedPreStopHook",
                           hook.message);
      }
    }
  }
  // The hook's time comes out of the grace period (at least the minimum is left).
  const auto spent = std::chrono::duration_cast<std::chrono::seconds>(ctx_.clock.now() - started);
  const int64_t left = std::max(grace_seconds - spent.count(), kMinimumGraceSeconds);
  (void)ctx_.runtime.stop_container(c.id, std::chrono::seconds(left));  // state re-read after
}

// Stops every running container (in parallel: each gets the whole grace period) and then
// the sandbox. True when nothing of the pod runs any more.
bool Syncer::kill_pod(int64_t grace_seconds) {
  std::vector<std::future<void>> stops;
  std::vector<std::string> seen;
  for (const auto& c : state_.containers) {
    if (c.state != ContainerState::kRunning) continue;
    json spec_copy = container_spec(pod_, c.name);
    stops.push_back(std::async(std::launch::async, [this, spec_copy, c, grace_seconds] {
      stop_container(spec_copy.is_null() ? nullptr : &spec_copy, c, grace_seconds);
    }));
  }
  for (auto& f : stops) f.get();
  for (const auto& s : state_.sandboxes) {
    if (s.state == runtime::SandboxState::kReady) (void)ctx_.runtime.stop_pod_sandbox(s.id);
  }
  if (!observe().is_ok()) return false;
  for (const auto& c : state_.containers) {
    if (c.state == ContainerState::kRunning) return false;
  }
  return !state_.sandbox_ready();
}

Status Syncer::ensure_sandbox() {
  if (state_.sandbox_ready()) return Status::ok();
  const auto* old = state_.sandbox();
  const uint32_t attempt = old ? old->config.attempt + 1 : 0;
  if (old && !state_.containers.empty()) {
    // A pod whose containers ran and that is done (or, under Never, cannot run them again)
    // gets no new sandbox (upstream's computePodActions).
    if (pod_restart_policy(pod_) == "Never") return Status::ok();
    const json status =
        generate_pod_status({pod_, state_, {}, ctx_.node, ctx_.clock.wall_now(), false, nullptr});
    const std::string phase = status.value("phase", "");
    if (phase == "Succeeded" || phase == "Failed") return Status::ok();
  }
  if (old) {
    ctx_.events.record(pod_, "", "Normal", "SandboxChanged",
                       "Pod sandbox changed, it will be killed and re-created.");
    (void)kill_pod(grace_seconds());  // leftovers of the old sandbox; re-observed inside
  }
  auto id = ctx_.runtime.run_pod_sandbox(
      sandbox_config(pod_, attempt, ctx_.dns, ctx_.log_root, ctx_.cgroups));
  if (!id.is_ok()) {
    ctx_.events.record(pod_, "", "Warning", "FailedCreatePodSandBox",
                       "Failed to create pod sandbox: " + id.status().message());
    return id.status();
  }
  return observe();
}

void Syncer::fail(const json& container, bool init, std::string reason, std::string message,
                  std::string event_message) {
  if (event_message.empty()) event_message = message;
  ctx_.events.record(pod_, field_path(container, init), "Warning", "Failed",
                     "Error: " + event_message);
  result_.reasons[container.value("name", "")] = {std::move(reason), std::move(message)};
}

bool Syncer::backed_off(const json& container, const std::string& path,
                        const ContainerStatus* last) {
  if (!last || last->state != ContainerState::kExited) return false;
  // Counted from when the last instance exited.
  const std::string name = container.value("name", "");
  const std::string key = meta(pod_, "uid") + "_" + name;
  if (!ctx_.crash_backoff.in_backoff_since(key, last->finished_at)) {
    ctx_.crash_backoff.next(key, last->finished_at);
    return false;
  }
  const std::string description = pod_description(pod_);
  ctx_.events.record(pod_, path, "Warning", "BackOff",
                     "Back-off restarting failed container " + name + " in pod " + description);
  result_.reasons[name] = {"CrashLoopBackOff",
                           "back-off " + go_duration(ctx_.crash_backoff.get(key)) +
                               " restarting failed container=" + name + " pod=" + description};
  earliest(result_.requeue_after,
           last->finished_at + ctx_.crash_backoff.get(key) - ctx_.clock.wall_now());
  return true;
}

std::optional<runtime::ContainerConfig> Syncer::config_for(const json& container, bool init,
                                                           const runtime::ImageSummary& image,
                                                           uint32_t attempt) {
  std::vector<std::string> pod_ips;
  if (pod_["spec"].value("hostNetwork", false)) {
    pod_ips = ctx_.node.host_ips;
  } else if (!state_.sandbox()->ip.empty()) {
    pod_ips = {state_.sandbox()->ip};
  }
  std::map<std::string, std::string> services;
  if (ctx_.services) {
    auto list = ctx_.services();
    if (!list.is_ok()) {
      fail(container, init, "CreateContainerConfigError", list.status().message());
      return std::nullopt;
    }
    services = service_env(pod_, *list);
  }
  auto env = container_env(pod_, container, image.env, ctx_.objects, ctx_.node, pod_ips, services);
  if (!env.is_ok()) {
    fail(container, init, "CreateContainerConfigError", env.status().message());
    return std::nullopt;
  }
  for (const auto& w : env->warnings) ctx_.events.record(pod_, "", "Warning", w.reason, w.message);
  auto argv = container_argv(container, image.entrypoint, image.cmd, env->declared);
  if (!argv.is_ok()) {
    fail(container, init, "CreateContainerError", argv.status().message());
    return std::nullopt;
  }
  if (Status s = verify_run_as_non_root(pod_, container, image.user); !s.is_ok()) {
    fail(container, init, "CreateContainerConfigError", s.message());
    return std::nullopt;
  }
  if (Status s = unsupported_security(pod_, container); !s.is_ok()) {
    fail(container, init, "CreateContainerError", s.message());
    return std::nullopt;
  }
  runtime::ContainerConfig config =
      container_config(pod_, container, attempt, {std::move(*argv), std::move(env->env)},
                       ctx_.seccomp_root);
  if (ctx_.mounts) {
    auto mounted = expand_sub_path_exprs(container, config.env);
    if (!mounted.is_ok()) {
      fail(container, init, "CreateContainerConfigError", mounted.status().message());
      return std::nullopt;
    }
    auto mounts = ctx_.mounts(pod_, *mounted, attempt);
    if (!mounts.is_ok()) {
      // As upstream: the volume manager has recorded FailedMount; the container waits as
      // ContainerCreating (no reason of its own) and the mount is tried again soon.
      earliest(result_.requeue_after, kMountRetry);
      return std::nullopt;
    }
    config.mounts = std::move(*mounts);
  }
  return config;
}

bool Syncer::start(const json& container, bool init) {
  const std::string name = container.value("name", "");
  const std::string path = field_path(container, init);
  const ContainerStatus* last = state_.latest(name);
  if (backed_off(container, path, last)) return false;
  ImageOutcome image = ensure_image(pod_, container, path, ctx_);
  if (image.retry_after) earliest(result_.requeue_after, *image.retry_after);
  if (!image.image) {
    // The event says only the reason ("Error: ErrImagePull"), as upstream's.
    fail(container, init, image.failure.reason, image.failure.message, image.failure.reason);
    return false;
  }
  auto config = config_for(container, init, *image.image, last ? last->attempt + 1 : 0);
  if (!config) return false;
  auto id = ctx_.runtime.create_container(state_.sandbox()->id, *config);
  if (!id.is_ok()) {
    fail(container, init, "CreateContainerError", id.status().message());
    return false;
  }
  ctx_.events.record(pod_, path, "Normal", "Created", "Created container " + name);
  if (Status s = ctx_.runtime.start_container(*id); !s.is_ok()) {
    fail(container, init, "RunContainerError", s.message());
    return false;
  }
  ctx_.events.record(pod_, path, "Normal", "Started", "Started container " + name);
  const json lifecycle = container.value("lifecycle", json::object());
  if (lifecycle.contains("postStart")) {
    // Runs to the end before the next container starts; a failure kills the container.
    HookOutcome hook =
        run_lifecycle_hook(ctx_.runtime, *id, pod_, container, lifecycle["postStart"],
                           kPostStartTimeout, hook_network());
    if (!hook.ok) {
      ctx_.events.record(pod_, path, "Warning", "FailedPostStartHook", hook.message);
      ctx_.events.record(pod_, path, "Normal", "Killing", "FailedPostStartHook");
      (void)ctx_.runtime.stop_container(*id, std::chrono::seconds(grace_seconds()));
      result_.reasons[name] = {"PostStartHookError", hook.message};
      return false;
    }
  }
  return true;
}

bool Syncer::sync_init_containers() {
  const json inits = pod_["spec"].value("initContainers", json::array());
  if (inits.empty()) return true;
  // An app container that ran in this sandbox means initialization finished before: only
  // sidecars that stopped are started again.
  bool initialized = false;
  for (const auto& c : pod_["spec"].value("containers", json::array())) {
    initialized = initialized || state_.latest_in_sandbox(c.value("name", "")) != nullptr;
  }
  if (initialized) {
    for (const auto& container : inits) {
      if (!is_restartable_init_container(container)) continue;
      const auto* s = state_.latest_in_sandbox(container.value("name", ""));
      if (should_restart_container(pod_, container, s)) start(container, true);
    }
    return true;
  }
  for (const auto& container : inits) {
    const auto* s = state_.latest_in_sandbox(container.value("name", ""));
    if (is_restartable_init_container(container)) {
      if (s && s->state == ContainerState::kRunning) continue;
      if (!start(container, true)) return false;
      continue;  // a started sidecar lets the next init container run
    }
    if (s && s->state == ContainerState::kExited && s->exit_code == 0) continue;
    if (s && s->state == ContainerState::kRunning) return false;  // still initializing
    if (s && s->state == ContainerState::kExited && pod_restart_policy(pod_) == "Never") {
      kill_pod(grace_seconds());  // failed for good: the pod is Failed
      return false;
    }
    start(container, true);
    return false;
  }
  return true;
}

void Syncer::sync_app_containers() {
  const std::string policy = pod_restart_policy(pod_);
  for (const auto& container : pod_["spec"].value("containers", json::array())) {
    const std::string name = container.value("name", "");
    const ContainerStatus* current = state_.latest_in_sandbox(name);
    if (current && current->state == ContainerState::kRunning) {
      auto hash = current->labels.find(labels::kContainerHash);
      if (hash == current->labels.end() || hash->second == container_spec_hash(container)) {
        continue;
      }
      ctx_.events.record(pod_, field_path(container, false), "Normal", "Killing",
                         "Container " + name + " definition changed, will be restarted");
      (void)ctx_.runtime.stop_container(current->id, std::chrono::seconds(grace_seconds()));
      if (!observe().is_ok()) return;
      current = state_.latest_in_sandbox(name);
    }
    // In a new sandbox, a container that already succeeded under OnFailure stays done.
    const ContainerStatus* last = current ? current : state_.latest(name);
    if (!current && !(policy == "OnFailure" && last && last->state == ContainerState::kExited &&
                      last->exit_code == 0)) {
      last = nullptr;
    }
    if (should_restart_container(pod_, container, last)) start(container, false);
  }
}

ProbeTarget Syncer::network_target() const {
  if (pod_["spec"].value("hostNetwork", false))
    return ctx_.node.host_ips.empty() ? "127.0.0.1" : ctx_.node.host_ips[0];
  const auto* sandbox = state_.sandbox();
  if (!sandbox) return {};
  if (!sandbox->ip.empty()) return sandbox->ip;
  // Loopback only (no pod network yet): 127.0.0.1 inside the pod's network namespace, through
  // the runtime's port-forward connection, with Go's dial wording for a failure.
  ProbeTarget target("127.0.0.1");
  target.dial = [&runtime = ctx_.runtime, id = sandbox->id](int port, std::string& why) {
    auto fd = runtime.port_forward(id, static_cast<uint16_t>(port));
    if (fd.is_ok()) return *fd;
    const std::string& message = fd.status().message();
    const size_t connect = message.rfind("connect: ");
    why = "dial tcp 127.0.0.1:" + std::to_string(port) + ": " +
          (connect == std::string::npos ? message : message.substr(connect));
    return -1;
  };
  return target;
}

HookNetwork Syncer::hook_network() const {
  return {ctx_.probes ? &ctx_.probes->network() : nullptr, network_target()};
}

HealthByName Syncer::run_probes() {
  HealthByName health;
  const auto* sandbox = state_.sandbox();
  if (!ctx_.probes || !sandbox) return health;
  const ProbeTarget target = network_target();
  bool killed = false;
  for (const char* list : {"initContainers", "containers"}) {
    const bool init = std::string_view(list) == "initContainers";
    for (const auto& container : pod_["spec"].value(list, json::array())) {
      if (init && !is_restartable_init_container(container)) continue;
      const auto* c = state_.latest_in_sandbox(container.value("name", ""));
      if (!c || c->state != ContainerState::kRunning) continue;
      std::vector<ProbeEvent> events;
      ProbeView view = ctx_.probes->evaluate(container, *c, target, events);
      const std::string path = field_path(container, init);
      for (const auto& e : events) ctx_.events.record(pod_, path, "Warning", e.reason, e.message);
      if (view.next_due) earliest(result_.requeue_after, *view.next_due);
      health[c->name] = {view.started, view.ready};
      if (view.kill_message) {
        ctx_.events.record(pod_, path, "Normal", "Killing", *view.kill_message);
        (void)ctx_.runtime.stop_container(c->id, std::chrono::seconds(grace_seconds()));
        killed = true;
      }
    }
  }
  // A killed container is restarted by the next sync, through the crash-loop backoff.
  if (killed && observe().is_ok()) earliest(result_.requeue_after, std::chrono::milliseconds(1));
  return health;
}

void Syncer::prune() {
  std::map<std::string, int> seen;
  bool removed = false;
  for (const auto& c : state_.containers) {  // newest first
    if (++seen[c.name] <= 2 || c.state != ContainerState::kExited) continue;
    removed = ctx_.runtime.remove_container(c.id).is_ok() || removed;
  }
  if (removed && !observe().is_ok()) return;
  for (size_t i = 1; i < state_.sandboxes.size(); ++i) {
    const auto& s = state_.sandboxes[i];
    if (s.state == runtime::SandboxState::kReady) continue;
    const bool empty = std::none_of(state_.containers.begin(), state_.containers.end(),
                                    [&](const auto& c) { return c.sandbox_id == s.id; });
    if (empty) (void)ctx_.runtime.remove_pod_sandbox(s.id);  // seen again by the next sync
  }
}

SyncResult Syncer::run() {
  if (Status s = observe(); !s.is_ok()) {
    result_.error = s;
    return std::move(result_);
  }
  const std::string phase = pod_.value("status", json::object()).value("phase", "");
  const bool deleting = pod_is_deleting(pod_);
  bool terminal = false;
  HealthByName health;
  if (deleting || phase == "Succeeded" || phase == "Failed") {
    terminal = kill_pod(grace_seconds());
    result_.terminated = terminal;
  } else if (Status s = ensure_sandbox(); !s.is_ok()) {
    result_.error = s;
  } else if (!state_.sandbox_ready()) {
    // A Never pod whose containers ran is not given a new sandbox: it is done.
  } else {
    if (sync_init_containers()) sync_app_containers();
    if (!observe().is_ok()) {
      result_.error = error(Code::kInternal, "cannot list the pod's containers");
    }
    health = run_probes();
    // Every app container ran and none runs or is to start again: the pod is done here;
    // its sidecars are stopped with the sandbox.
    bool done = state_.sandbox_ready();
    for (const auto& c : pod_["spec"].value("containers", json::array())) {
      const auto* s = state_.latest_in_sandbox(c.value("name", ""));
      done = done && s && s->state != ContainerState::kRunning &&
             !should_restart_container(pod_, c, s);
    }
    if (done) kill_pod(grace_seconds());
    prune();
  }
  // As upstream's pod workers: a failure without a timer of its own (a missing ConfigMap
  // key may appear any time) is retried after 10 s; every pod is re-synced each minute.
  if (!result_.terminated) {
    if (!result_.reasons.empty() && !result_.requeue_after) earliest(result_.requeue_after, kRetry);
    // A deleted pod whose containers did not all stop yet is looked at again soon.
    if (deleting) earliest(result_.requeue_after, std::chrono::seconds(1));
    earliest(result_.requeue_after, kResync);
  }
  result_.status = generate_pod_status({pod_, state_, result_.reasons, ctx_.node,
                                        ctx_.clock.wall_now(), terminal && deleting, &health});
  return std::move(result_);
}

}  // namespace

std::string pod_description(const json& pod) {
  return meta(pod, "name") + "_" + meta(pod, "namespace") + "(" + meta(pod, "uid") + ")";
}

Result<PodRuntimeState> observe_pod(runtime::RuntimeService& runtime, const std::string& uid) {
  ASSIGN_OR_RETURN(runtime::PodListing listing, runtime.list_pod(pod_filter(uid)));
  return pod_runtime_state(listing.sandboxes, listing.containers, uid);
}

SyncResult sync_pod(const json& pod, SyncContext& ctx) { return Syncer(pod, ctx).run(); }

}  // namespace k3c::kubelet
