// The labels the kubelet puts on sandboxes and containers, as upstream's kubelet does: the
// runtime keeps them and lists them back, so the kubelet can tell after a restart which pod
// and which container of its spec each one is.
#pragma once

namespace k3c::kubelet::labels {

inline constexpr const char* kPodUid = "io.kubernetes.pod.uid";
inline constexpr const char* kPodName = "io.kubernetes.pod.name";
inline constexpr const char* kPodNamespace = "io.kubernetes.pod.namespace";
inline constexpr const char* kContainerName = "io.kubernetes.container.name";
// A hash of the container's spec: a change (for example `kubectl set image`) restarts it.
inline constexpr const char* kContainerHash = "io.kubernetes.container.hash";

}  // namespace k3c::kubelet::labels
