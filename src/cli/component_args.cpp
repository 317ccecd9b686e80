// Pass-through component flags (see component_args.h): one table of keys per component.
#include "cli/component_args.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <span>
#include <variant>

#include "api/quantity.h"
#include "cli/values.h"

namespace k3c::cli {
namespace {

using std::chrono::milliseconds;

// Where a key's value goes: a function from the settings to the field, one per field type.
// An int64_t field is a size in bytes, written as a quantity ("10Mi"). A Parse is a key whose
// value has a syntax of its own (the eviction thresholds): it parses the value into the settings.
template <typename S>
using Parse = Status (*)(S&, std::string_view);
template <typename S>
using Field = std::variant<int* (*)(S&), milliseconds* (*)(S&), std::chrono::seconds* (*)(S&),
                           bool* (*)(S&), std::string* (*)(S&), int64_t* (*)(S&), Parse<S>>;

template <typename S>
struct ArgKey {
  std::string_view name;
  Field<S> field;
  int min = 0;  // for integers
  int max = std::numeric_limits<int>::max();
  bool ip_address = false;  // for strings: an IP address, not a path
};

// Upstream keys a user may well pass (k3s guides show them) that k3c does not act on: an
// error says so instead of "unknown".
constexpr std::string_view kNotActedOn[] = {"bind-address",
                                            "secure-port",
                                            "kubeconfig",
                                            "authentication-kubeconfig",
                                            "authorization-kubeconfig",
                                            "profiling",
                                            "cluster-cidr",
                                            "service-cluster-ip-range",
                                            "cluster-signing-cert-file",
                                            "cluster-signing-key-file",
                                            "root-ca-file",
                                            "service-account-private-key-file",
                                            "use-service-account-credentials",
                                            "controllers",
                                            "feature-gates",
                                            "config",
                                            "v",
                                            "kube-api-qps",
                                            "kube-api-burst",
                                            "leader-elect-resource-lock",
                                            "pod-eviction-timeout",
                                            "concurrent-serviceaccount-token-syncs",
                                            "node-eviction-rate",
                                            "secondary-node-eviction-rate",
                                            "large-cluster-size-threshold",
                                            "unhealthy-zone-threshold"};

// The same for the kubelet (its keys are not the other components' keys, but one message
// serves all).
constexpr std::string_view kKubeletNotActedOn[] = {"kube-reserved",     "system-reserved",
                                                   "cgroup-driver",     "resolv-conf",
                                                   "hostname-override", "fail-swap-on"};

Result<int> parse_count(std::string_view text, int min, int max) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return error(Code::kInvalid, "expected a whole number");
  }
  if (value < min) return error(Code::kInvalid, "must be at least " + std::to_string(min));
  if (value > max) return error(Code::kInvalid, "must be at most " + std::to_string(max));
  return value;
}

template <typename S>
Status apply(std::string_view component, std::span<const ArgKey<S>> keys, std::string_view arg,
             S& settings) {
  while (arg.starts_with('-')) arg.remove_prefix(1);
  const size_t eq = arg.find('=');
  const std::string_view key = arg.substr(0, eq);
  const bool has_value = eq != std::string_view::npos;
  const std::string_view value = has_value ? arg.substr(eq + 1) : std::string_view();
  if (key.empty()) return error(Code::kInvalid, "expected KEY=VALUE");
  for (const ArgKey<S>& spec : keys) {
    if (spec.name != key) continue;
    auto bad = [&](const Status& why) {
      return error(Code::kInvalid,
                   std::string(component) + " flag " + std::string(key) + ": " + why.message());
    };
    if (auto* field = std::get_if<bool* (*)(S&)>(&spec.field)) {
      if (!has_value) {
        *(*field)(settings) = true;
        return Status::ok();
      }
      auto parsed = parse_bool(value);
      if (!parsed.is_ok()) return bad(parsed.status());
      *(*field)(settings) = *parsed;
      return Status::ok();
    }
    if (!has_value) return bad(error(Code::kInvalid, "needs a value (KEY=VALUE)"));
    if (auto* parse = std::get_if<Parse<S>>(&spec.field)) {
      Status parsed = (*parse)(settings, value);
      return parsed.is_ok() ? parsed : bad(parsed);
    }
    if (auto* field = std::get_if<std::string* (*)(S&)>(&spec.field)) {
      if (spec.ip_address) {
        auto ip = IpAddress::parse(value);
        if (!ip.is_ok()) return bad(ip.status());
        *(*field)(settings) = ip->to_string();
        return Status::ok();
      }
      // Paths: absolute, as the kubelet requires for its directories and cgroup root.
      if (!value.starts_with('/')) return bad(error(Code::kInvalid, "must be an absolute path"));
      *(*field)(settings) = std::string(value);
      return Status::ok();
    }
    if (auto* field = std::get_if<int64_t* (*)(S&)>(&spec.field)) {
      auto quantity = api::Quantity::parse(value);
      if (!quantity || quantity->value() <= 0)
        return bad(error(Code::kInvalid, "expected a positive size such as 10Mi"));
      *(*field)(settings) = quantity->value();
      return Status::ok();
    }
    if (auto* field = std::get_if<int* (*)(S&)>(&spec.field)) {
      auto parsed = parse_count(value, spec.min, spec.max);
      if (!parsed.is_ok()) return bad(parsed.status());
      *(*field)(settings) = *parsed;
      return Status::ok();
    }
    auto parsed = parse_duration(value);
    if (!parsed.is_ok()) return bad(parsed.status());
    if (auto* field = std::get_if<milliseconds* (*)(S&)>(&spec.field)) {
      *(*field)(settings) = *parsed;
    } else {
      if (parsed->count() % 1000 != 0 || parsed->count() == 0) {
        return bad(error(Code::kInvalid, "must be a whole number of seconds, at least 1s"));
      }
      *std::get<std::chrono::seconds* (*)(S&)>(spec.field)(settings) =
          std::chrono::duration_cast<std::chrono::seconds>(*parsed);
    }
    return Status::ok();
  }
  const auto listed = [&](std::span<const std::string_view> names) {
    return std::find(names.begin(), names.end(), key) != names.end();
  };
  if (listed(kNotActedOn) || listed(kKubeletNotActedOn)) {
    return error(Code::kInvalid,
                 std::string(component) + " flag " + std::string(key) + " is not supported by k3c");
  }
  std::string names;
  for (const ArgKey<S>& spec : keys) names += (names.empty() ? "" : ", ") + std::string(spec.name);
  return error(Code::kInvalid, "unknown " + std::string(component) + " flag " + std::string(key) +
                                   " (k3c takes: " + names + ")");
}

template <typename S>
std::vector<std::string> names_of(std::span<const ArgKey<S>> keys) {
  std::vector<std::string> names;
  for (const ArgKey<S>& spec : keys) names.emplace_back(spec.name);
  return names;
}

// The leader-election keys both components take, on their `leader_election` member.
template <typename S>
constexpr std::array<ArgKey<S>, 4> leader_election_keys() {
  return {{
      {"leader-elect", +[](S& s) { return &s.leader_election.leader_elect; }},
      {"leader-elect-lease-duration", +[](S& s) { return &s.leader_election.lease_duration; }},
      {"leader-elect-renew-deadline", +[](S& s) { return &s.leader_election.renew_deadline; }},
      {"leader-elect-retry-period", +[](S& s) { return &s.leader_election.retry_period; }},
  }};
}

template <typename S, size_t N, size_t M>
constexpr std::array<ArgKey<S>, N + M> join(const std::array<ArgKey<S>, N>& a,
                                            const std::array<ArgKey<S>, M>& b) {
  std::array<ArgKey<S>, N + M> all{};
  for (size_t i = 0; i < N; ++i) all[i] = a[i];
  for (size_t i = 0; i < M; ++i) all[N + i] = b[i];
  return all;
}

using CM = controllers::ControllerManagerSettings;
constexpr std::array<ArgKey<CM>, 25> kControllerManagerOwn = {{
    {"concurrent-replicaset-syncs", +[](CM& s) { return &s.concurrent_replicaset_syncs; }, 1},
    {"concurrent-rc-syncs", +[](CM& s) { return &s.concurrent_rc_syncs; }, 1},
    {"concurrent-deployment-syncs", +[](CM& s) { return &s.concurrent_deployment_syncs; }, 1},
    {"concurrent-statefulset-syncs", +[](CM& s) { return &s.concurrent_statefulset_syncs; }, 1},
    {"concurrent-daemonset-syncs", +[](CM& s) { return &s.concurrent_daemonset_syncs; }, 1},
    {"concurrent-gc-syncs", +[](CM& s) { return &s.concurrent_gc_syncs; }, 1},
    {"concurrent-namespace-syncs", +[](CM& s) { return &s.concurrent_namespace_syncs; }, 1},
    {"concurrent-endpoint-syncs", +[](CM& s) { return &s.concurrent_endpoint_syncs; }, 1},
    {"concurrent-service-endpoint-syncs",
     +[](CM& s) { return &s.concurrent_service_endpoint_syncs; }, 1},
    {"mirroring-concurrent-service-endpoint-syncs",
     +[](CM& s) { return &s.mirroring_concurrent_service_endpoint_syncs; }, 1},
    {"concurrent-job-syncs", +[](CM& s) { return &s.concurrent_job_syncs; }, 1},
    {"concurrent-cron-job-syncs", +[](CM& s) { return &s.concurrent_cron_job_syncs; }, 1},
    {"concurrent-ttl-after-finished-syncs",
     +[](CM& s) { return &s.concurrent_ttl_after_finished_syncs; }, 1},
    {"terminated-pod-gc-threshold", +[](CM& s) { return &s.terminated_pod_gc_threshold; }},
    {"node-monitor-period", +[](CM& s) { return &s.node_monitor_period; }},
    {"node-monitor-grace-period", +[](CM& s) { return &s.node_monitor_grace_period; }},
    {"node-startup-grace-period", +[](CM& s) { return &s.node_startup_grace_period; }},
    {"allocate-node-cidrs", +[](CM& s) { return &s.allocate_node_cidrs; }},
    {"node-cidr-mask-size", +[](CM& s) { return &s.node_cidr_mask_size; }, 1},
    {"node-cidr-mask-size-ipv4", +[](CM& s) { return &s.node_cidr_mask_size; }, 1},
    {"concurrent-resource-quota-syncs", +[](CM& s) { return &s.concurrent_resource_quota_syncs; },
     1},
    {"resource-quota-sync-period", +[](CM& s) { return &s.resource_quota_sync_period; }},
    {"cluster-signing-duration", +[](CM& s) { return &s.cluster_signing_duration; }},
    {"concurrent-horizontal-pod-autoscaler-syncs",
     +[](CM& s) { return &s.concurrent_horizontal_pod_autoscaler_syncs; }, 1},
    {"horizontal-pod-autoscaler-sync-period",
     +[](CM& s) { return &s.horizontal_pod_autoscaler_sync_period; }},
}};
constexpr auto kControllerManagerKeys = join(kControllerManagerOwn, leader_election_keys<CM>());

using Sched = scheduler::SchedulerSettings;
constexpr std::array<ArgKey<Sched>, 1> kSchedulerOwn = {{
    {"pod-max-in-unschedulable-pods-duration",
     +[](Sched& s) { return &s.pod_max_in_unschedulable_pods_duration; }},
}};
constexpr auto kSchedulerKeys = join(kSchedulerOwn, leader_election_keys<Sched>());

using Kubelet = kubelet::KubeletSettings;

// The eviction flags are maps, as upstream's: each one given adds to what the earlier ones
// set (the first eviction-hard replaces the defaults).
template <typename T>
Status merge_into(std::map<kubelet::Signal, T>& into, Result<std::map<kubelet::Signal, T>> parsed) {
  if (!parsed.is_ok()) return parsed.status();
  for (auto& [signal, value] : *parsed) into[signal] = value;
  return Status::ok();
}
Status eviction_hard(Kubelet& s, std::string_view v) {
  if (!s.eviction.hard) s.eviction.hard.emplace();
  return merge_into(*s.eviction.hard, kubelet::parse_threshold_list(v));
}
Status eviction_soft(Kubelet& s, std::string_view v) {
  return merge_into(s.eviction.soft, kubelet::parse_threshold_list(v));
}
Status eviction_soft_grace(Kubelet& s, std::string_view v) {
  return merge_into(s.eviction.soft_grace_period, kubelet::parse_grace_period_list(v));
}
Status eviction_minimum_reclaim(Kubelet& s, std::string_view v) {
  return merge_into(s.eviction.minimum_reclaim, kubelet::parse_minimum_reclaim_list(v));
}

constexpr std::array<ArgKey<Kubelet>, 22> kKubeletKeys = {{
    {"address", +[](Kubelet& s) { return &s.address; }, 0, 0, true},
    {"port", +[](Kubelet& s) { return &s.port; }, 0, 65535},
    {"cgroup-root", +[](Kubelet& s) { return &s.cgroup_root; }},
    {"pod-logs-dir", +[](Kubelet& s) { return &s.pod_logs_dir; }},
    {"root-dir", +[](Kubelet& s) { return &s.root_dir; }},
    {"node-status-update-frequency", +[](Kubelet& s) { return &s.node_status_update_frequency; }},
    {"node-status-report-frequency", +[](Kubelet& s) { return &s.node_status_report_frequency; }},
    {"max-pods", +[](Kubelet& s) { return &s.max_pods; }, 1},
    {"pod-max-pids", +[](Kubelet& s) { return &s.pod_max_pids; }, -1},
    {"image-gc-high-threshold", +[](Kubelet& s) { return &s.image_gc_high_threshold_percent; }, 0,
     100},
    {"image-gc-low-threshold", +[](Kubelet& s) { return &s.image_gc_low_threshold_percent; }, 0,
     100},
    {"minimum-image-ttl-duration", +[](Kubelet& s) { return &s.image_minimum_gc_age; }},
    {"pod-manifest-path", +[](Kubelet& s) { return &s.pod_manifest_path; }},
    {"file-check-frequency", +[](Kubelet& s) { return &s.file_check_frequency; }},
    {"container-log-max-size", +[](Kubelet& s) { return &s.container_log_max_size_bytes; }},
    {"container-log-max-files", +[](Kubelet& s) { return &s.container_log_max_files; }, 2},
    {"eviction-hard", Parse<Kubelet>(eviction_hard)},
    {"eviction-soft", Parse<Kubelet>(eviction_soft)},
    {"eviction-soft-grace-period", Parse<Kubelet>(eviction_soft_grace)},
    {"eviction-minimum-reclaim", Parse<Kubelet>(eviction_minimum_reclaim)},
    {"eviction-pressure-transition-period",
     +[](Kubelet& s) { return &s.eviction.pressure_transition_period; }},
    // Negative: the pod's own grace period, as upstream.
    {"eviction-max-pod-grace-period",
     +[](Kubelet& s) { return &s.eviction.max_pod_grace_period_seconds; },
     std::numeric_limits<int>::min()},
}};

}  // namespace

Status apply_controller_manager_arg(std::string_view arg,
                                    controllers::ControllerManagerSettings& settings) {
  return apply<CM>("kube-controller-manager", kControllerManagerKeys, arg, settings);
}

Status apply_scheduler_arg(std::string_view arg, scheduler::SchedulerSettings& settings) {
  return apply<Sched>("kube-scheduler", kSchedulerKeys, arg, settings);
}

std::vector<std::string> controller_manager_arg_keys() {
  return names_of<CM>(kControllerManagerKeys);
}
std::vector<std::string> scheduler_arg_keys() { return names_of<Sched>(kSchedulerKeys); }

Status apply_kubelet_arg(std::string_view arg, kubelet::KubeletSettings& settings) {
  return apply<Kubelet>("kubelet", kKubeletKeys, arg, settings);
}
std::vector<std::string> kubelet_arg_keys() { return names_of<Kubelet>(kKubeletKeys); }

}  // namespace k3c::cli
