// One sync of one pod against the runtime, as upstream's kubelet (SyncPod and
// computePodActions): level-triggered, it reads what the runtime has of the pod and acts
// towards the spec, then computes the status to report.
//
//   - A pod being deleted (or already Succeeded/Failed): its running containers are stopped
//     gracefully in parallel (preStop exec hook first, then the stop signal, SIGKILL after
//     the grace period: deletionGracePeriodSeconds, else terminationGracePeriodSeconds, at
//     least 2 s), then its sandbox. `terminated` tells the caller it may delete the pod from
//     the API.
//   - A sandbox is created when there is none or it is not ready (SandboxChanged; not again
//     for a restartPolicy Never pod whose containers already ran).
//   - Init containers run one at a time in order, each to success; a failed one restarts
//     (Always / OnFailure, with the crash-loop backoff) or fails the pod (Never). A sidecar
//     (init container with restartPolicy Always) is started and kept running.
//   - App containers that are not running are started when the restart policy says so;
//     a restart waits out the CrashLoopBackOff (10 s doubling to 5 min per container);
//     a running container whose spec changed (its image, say) is restarted.
//   - When nothing runs or is to start any more (all done under Never / OnFailure), the
//     sandbox is stopped.
// Each step records upstream's Events; each failure becomes the container's waiting reason
// (ErrImagePull, ImagePullBackOff, ErrImageNeverPull, CreateContainerConfigError,
// CreateContainerError, RunContainerError, CrashLoopBackOff).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "roles/kubelet/pods/container_statuses.h"
#include "roles/kubelet/pods/pod_runtime_state.h"
#include "roles/kubelet/pods/sync_context.h"

namespace k3c::kubelet {

struct SyncResult {
  nlohmann::json status;   // the status to report
  WaitingReasons reasons;  // why containers wait (also inside `status`)
  // The pod is deleted (or terminal) and nothing of it runs: the caller may remove it from
  // the API (a deleted pod) and the runtime.
  bool terminated = false;
  // Sync again after this long: when a backoff ends, 10 s after a failure without one, at
  // the latest after a minute (upstream's resync); nullopt for a terminated pod.
  std::optional<Clock::Duration> requeue_after;
  // A runtime failure (listing, sandbox creation): sync again with backoff.
  Status error;
};

SyncResult sync_pod(const nlohmann::json& pod, SyncContext& ctx);

// What the runtime has of the pod with this uid.
Result<PodRuntimeState> observe_pod(runtime::RuntimeService& runtime, const std::string& uid);

// "name_namespace(uid)", as upstream's format.Pod names a pod in messages.
std::string pod_description(const nlohmann::json& pod);

}  // namespace k3c::kubelet
