// status.containerStatuses and status.initContainerStatuses as upstream's kubelet writes them
// (convertToAPIContainerStatuses): each container of the spec gets a status; one that never
// ran waits with reason ContainerCreating (PodInitializing when the pod has init
// containers); the newest runtime instance gives state (running / terminated with the
// runtime's reason: Completed, Error, OOMKilled), containerID "k3c://<id>", image, imageID
// and restartCount, the one before it lastState; a container that should restart and whose
// last sync failed waits with that failure's reason and message (CrashLoopBackOff,
// ErrImagePull, ImagePullBackOff, CreateContainerConfigError, ...), its terminated state
// moving to lastState. App containers are sorted by name, init containers kept in spec order.
// Ready: a running container whose probes say so; an init container that exited 0.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "roles/kubelet/pods/pod_runtime_state.h"

namespace k3c::kubelet {

// Why a container waits, from the last sync of its pod (upstream's reason cache).
struct WaitingReason {
  std::string reason;
  std::string message;
};
using WaitingReasons = std::map<std::string, WaitingReason>;  // by container name

// What the probes say of a running container (probes.h); a container without an entry is
// started and ready while it runs.
struct ContainerHealth {
  bool started = true;
  bool ready = true;
};
using HealthByName = std::map<std::string, ContainerHealth>;

inline constexpr const char* kContainerIdPrefix = "k3c://";

nlohmann::json api_container_statuses(const nlohmann::json& pod, bool init,
                                      const PodRuntimeState& state, const WaitingReasons& reasons,
                                      const HealthByName& health = {});

// The API state object ({"running": ...} / {"terminated": ...} / {"waiting": ...}) of one
// runtime instance.
nlohmann::json api_container_state(const runtime::ContainerStatus& c);

}  // namespace k3c::kubelet
