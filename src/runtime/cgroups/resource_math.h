// The kubelet's arithmetic from Kubernetes resources to cgroup settings, as upstream's
// pkg/kubelet/cm and kuberuntime do it: milli-CPU requests become CFS shares (v1 cpu.shares,
// v2 cpu.weight through the runc/crun conversion), milli-CPU limits become a CFS quota over a
// 100 ms period. Pure functions.
#pragma once

#include <cstdint>

#include "runtime/runtime_service.h"

namespace k3c::runtime {

inline constexpr int64_t kMinShares = 2;
inline constexpr int64_t kMaxShares = 262144;
inline constexpr int64_t kSharesPerCpu = 1024;
inline constexpr int64_t kQuotaPeriodUs = 100000;  // 100 ms
inline constexpr int64_t kMinQuotaUs = 1000;       // the kernel's minimum: 1 ms

// 0 -> 2 (the kernel's minimum, not its default of 1024: a pod that requests nothing gets the
// least); else milli * 1024 / 1000 clamped to [2, 262144].
int64_t milli_cpu_to_shares(int64_t milli_cpu);
// 0 -> 0 (no quota); else milli * period / 1000, at least 1000 us.
int64_t milli_cpu_to_quota(int64_t milli_cpu, int64_t period_us = kQuotaPeriodUs);
// cgroup v1 shares [2, 262144] -> v2 cpu.weight [1, 10000]: 1 + (shares - 2) * 9999 / 262142;
// 0 (unset) -> 0.
int64_t shares_to_weight(int64_t shares);

// A container's settings (kuberuntime): shares from the CPU request, or from the limit when
// only a limit is given; a quota only with a CPU limit; memory limit as given (0 = none).
LinuxResources container_linux_resources(int64_t cpu_request_milli, int64_t cpu_limit_milli,
                                         int64_t memory_limit_bytes);

// A pod cgroup's settings from the pod-level amounts the API side computes
// (api::pod_cgroup in src/api/pod_qos.h): shares from the summed CPU requests (2 when none,
// as for BestEffort pods), a quota when a CPU limit is enforced (> 0), the memory limit
// (0 = none).
LinuxResources pod_linux_resources(int64_t cpu_request_milli, int64_t cpu_limit_milli,
                                   int64_t memory_limit_bytes);

}  // namespace k3c::runtime
