// Kubernetes resources -> cgroup settings (see resource_math.h).
#include "runtime/cgroups/resource_math.h"

#include <algorithm>

namespace k3c::runtime {

int64_t milli_cpu_to_shares(int64_t milli_cpu) {
  if (milli_cpu <= 0) return kMinShares;
  // Saturate before multiplying: a huge request must not wrap around.
  if (milli_cpu > kMaxShares * 1000) return kMaxShares;
  return std::clamp(milli_cpu * kSharesPerCpu / 1000, kMinShares, kMaxShares);
}

int64_t milli_cpu_to_quota(int64_t milli_cpu, int64_t period_us) {
  if (milli_cpu <= 0) return 0;
  // The kernel refuses quotas over ~ 2^44 us anyway; cap so the product cannot overflow.
  constexpr int64_t kMaxMilli = int64_t{1} << 40;
  const int64_t quota = std::min(milli_cpu, kMaxMilli) * period_us / 1000;
  return std::max(quota, kMinQuotaUs);
}

int64_t shares_to_weight(int64_t shares) {
  if (shares <= 0) return 0;
  shares = std::clamp(shares, kMinShares, kMaxShares);
  return 1 + (shares - 2) * 9999 / 262142;
}

LinuxResources container_linux_resources(int64_t cpu_request_milli, int64_t cpu_limit_milli,
                                         int64_t memory_limit_bytes) {
  LinuxResources r;
  // Limits without requests: the API server copies limits into requests for new pods; the
  // kubelet repeats the rule for pods stored before that.
  const bool limit_only = cpu_request_milli <= 0 && cpu_limit_milli > 0;
  r.cpu_shares = milli_cpu_to_shares(limit_only ? cpu_limit_milli : cpu_request_milli);
  r.cpu_period_us = kQuotaPeriodUs;
  r.cpu_quota_us = milli_cpu_to_quota(cpu_limit_milli);
  r.memory_limit_bytes = std::max<int64_t>(memory_limit_bytes, 0);
  return r;
}

LinuxResources pod_linux_resources(int64_t cpu_request_milli, int64_t cpu_limit_milli,
                                   int64_t memory_limit_bytes) {
  LinuxResources r;
  r.cpu_shares = milli_cpu_to_shares(cpu_request_milli);
  r.cpu_period_us = kQuotaPeriodUs;
  r.cpu_quota_us = milli_cpu_to_quota(cpu_limit_milli);
  r.memory_limit_bytes = std::max<int64_t>(memory_limit_bytes, 0);
  return r;
}

}  // namespace k3c::runtime
