// A hollow node's pod status through the kubelet's own status code (see hollow_pod_status.h).
#include "roles/hollow/hollow_pod_status.h"

#include <cstdio>

#include "api/json_fields.h"
#include "roles/kubelet/pods/pod_status.h"

namespace k3c::hollow {

using nlohmann::json;

std::string fake_digest(const std::string& seed) {
  // Four FNV-1a passes with different offsets: not a cryptographic digest, only its shape.
  std::string out;
  for (uint64_t round = 0; round < 4; ++round) {
    uint64_t h = 14695981039346656037ULL ^ (round * 0x9E3779B97F4A7C15ULL);
    for (unsigned char c : seed) {
      h ^= c;
      h *= 1099511628211ULL;
    }
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    out += hex;
  }
  return out;
}

kubelet::PodRuntimeState simulated_runtime(const json& pod, const std::string& pod_ip,
                                           runtime::WallTime started) {
  const json& meta = api::member(pod, "metadata");
  const json& spec = api::member(pod, "spec");
  const std::string uid = api::text(meta, "uid");
  kubelet::PodRuntimeState state;
  runtime::SandboxStatus sandbox;
  sandbox.id = fake_digest("sandbox/" + uid);
  sandbox.config.pod_uid = uid;
  sandbox.config.pod_name = api::text(meta, "name");
  sandbox.config.pod_namespace = api::text(meta, "namespace");
  sandbox.state = runtime::SandboxState::kReady;
  sandbox.created_at = started;
  sandbox.ip = api::member(spec, "hostNetwork") == true ? "" : pod_ip;
  state.sandboxes.push_back(sandbox);
  auto add = [&](const json& container, bool init) {
    runtime::ContainerStatus c;
    c.name = container.value("name", "");
    c.id = fake_digest("container/" + uid + "/" + c.name);
    c.sandbox_id = sandbox.id;
    c.image = container.value("image", "");
    c.image_ref = "sha256:" + fake_digest("image/" + c.image);
    c.created_at = c.started_at = started;
    // A restartable init container (a sidecar) keeps running like an app container.
    const bool sidecar = container.value("restartPolicy", "") == "Always";
    if (init && !sidecar) {
      c.state = runtime::ContainerState::kExited;
      c.exit_code = 0;
      c.reason = "Completed";
      c.finished_at = started;
    } else {
      c.state = runtime::ContainerState::kRunning;
    }
    state.containers.push_back(std::move(c));
  };
  // (null, for a missing list, iterates as empty)
  for (const json& c : api::member(spec, "initContainers")) add(c, true);
  for (const json& c : api::member(spec, "containers")) add(c, false);
  return state;
}

json hollow_pod_status(const json& pod, const std::string& pod_ip, runtime::WallTime started,
                       const kubelet::NodeFacts& node, runtime::WallTime now) {
  const kubelet::PodRuntimeState state = simulated_runtime(pod, pod_ip, started);
  const kubelet::WaitingReasons no_reasons;
  return kubelet::generate_pod_status(
      {.pod = pod, .state = state, .reasons = no_reasons, .node = node, .now = now});
}

}  // namespace k3c::hollow
