// The QoS-tier cgroups (see qos_cgroups.h).
#include "roles/kubelet/pods/qos_cgroups.h"

#include "core/log.h"
#include "roles/kubelet/pods/sandbox_config.h"
#include "runtime/cgroups/resource_math.h"

namespace k3c::kubelet {

namespace {

runtime::LinuxResources with_shares(int64_t shares) {
  runtime::LinuxResources r;
  r.cpu_shares = shares;
  return r;
}

}  // namespace

QosCgroups::QosCgroups(runtime::RuntimeService& runtime, std::string cgroup_root,
                       int64_t node_cpu_milli)
    : runtime_(runtime),
      kubepods_(cgroup_under(cgroup_root, "kubepods")),
      node_shares_(runtime::milli_cpu_to_shares(node_cpu_milli)) {}

void QosCgroups::update(int64_t burstable_cpu_request_milli) {
  apply_shares(runtime::milli_cpu_to_shares(burstable_cpu_request_milli), false);
}

void QosCgroups::grow(int64_t known_burstable_cpu_request_milli) {
  apply_shares(runtime::milli_cpu_to_shares(known_burstable_cpu_request_milli), true);
}

void QosCgroups::apply_shares(int64_t burstable, bool grow_only) {
  std::lock_guard lock(mu_);
  auto apply = [&](const std::string& path, int64_t shares) {
    Status s = runtime_.update_cgroup(path, with_shares(shares));
    if (!s.is_ok())
      log::for_role("kubelet")->warn("setting cpu shares {} on cgroup {}: {}", shares, path,
                                     s.to_string());
    return s.is_ok();
  };
  // The parent first: in cgroup v2 its controllers must be on before the tiers use them.
  if (!node_done_) node_done_ = apply(kubepods_, node_shares_);
  if (!best_effort_done_) best_effort_done_ = apply(kubepods_ + "/besteffort", runtime::kMinShares);
  if (grow_only && burstable < burstable_shares_) return;
  if (burstable != burstable_shares_ && apply(kubepods_ + "/burstable", burstable))
    burstable_shares_ = burstable;
}

}  // namespace k3c::kubelet
