// What one pod sync works with: the runtime, the images, the ConfigMaps and Secrets, where
// its Events go, the clock, the backoffs (shared by every sync of the node, keyed by pod uid
// and container name or image) and the node's facts.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/status.h"
#include "roles/kubelet/pods/backoff.h"
#include "roles/kubelet/pods/config_source.h"
#include "roles/kubelet/pods/node_facts.h"
#include "roles/kubelet/pods/probes.h"
#include "roles/kubelet/pods/sandbox_config.h"
#include "runtime/runtime_service.h"

namespace k3c::kubelet {

// Events about a pod (or, with a field path such as "spec.containers{web}", one of its
// containers), in upstream's reasons and words. Thread-safe.
class PodEvents {
 public:
  virtual ~PodEvents() = default;
  virtual void record(const nlohmann::json& pod, const std::string& field_path,
                      const std::string& type, const std::string& reason,
                      const std::string& message) = 0;
};

// The mounts of a container's volumeMounts; the volume manager's seam (volumes/; when unset,
// containers get no volume mounts). An error leaves the container waiting as
// ContainerCreating (the resolver records its own FailedMount event) and retries soon.
using MountResolver = std::function<Result<std::vector<runtime::Mount>>(
    const nlohmann::json& pod, const nlohmann::json& container, uint32_t attempt)>;

struct SyncContext {
  runtime::RuntimeService& runtime;
  runtime::ImageService& images;
  ConfigSource& objects;
  PodEvents& events;
  const Clock& clock;
  Backoff& crash_backoff;  // CrashLoopBackOff, keyed "<uid>_<container>"
  Backoff& pull_backoff;   // ImagePullBackOff, keyed "<uid>_<image>"
  const NodeFacts& node;
  DnsSettings dns;
  std::string log_root = "/var/log/pods";
  // Where Localhost seccomp profiles are (upstream's <root-dir>/seccomp).
  std::string seccomp_root = "/var/lib/kubelet/seccomp";
  MountResolver mounts;
  ProbeTracker* probes = nullptr;  // null: no probes run (running = started and ready)
  // Every Service of the cluster, for the Service environment variables; unset = none.
  std::function<Result<std::vector<nlohmann::json>>()> services;
  // The cgroup the pods' hierarchy goes under and the pods' pids limit.
  PodCgroupSettings cgroups;
  // The grace period to kill the pod with in place of its own (an eviction's; at least the
  // 2 s minimum still applies).
  std::optional<int64_t> grace_period_override = std::nullopt;
};

}  // namespace k3c::kubelet
