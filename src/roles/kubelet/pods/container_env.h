// A container's environment, built as upstream's kubelet builds it:
//   1. envFrom, in order: every key of the ConfigMap / Secret, with the prefix; a missing
//      object is an error unless `optional`; keys that cannot be environment names (empty,
//      containing '=' or a non-printable character: the 1.32 relaxed rule) are skipped and
//      reported as an InvalidEnvironmentVariableNames warning;
//   2. env, in order: `value` with $(VAR) expanded against what is declared so far, or
//      valueFrom (configMapKeyRef / secretKeyRef with `optional`, fieldRef, resourceFieldRef);
//   later entries win. The image's env comes first and is overridden by any of these (as
//   containerd merges it); image variables are not visible to $(VAR).
// A missing object or key gives the message upstream's kubelet shows with
// CreateContainerConfigError: `configmap "x" not found`, `couldn't find key k in ConfigMap
// ns/x` (and the same for secret / Secret).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/status.h"
#include "roles/kubelet/pods/config_source.h"
#include "roles/kubelet/pods/node_facts.h"

namespace k3c::kubelet {

struct EnvWarning {
  std::string reason;
  std::string message;
};

struct ContainerEnv {
  std::vector<std::string> env;                 // "NAME=value", image env first
  std::map<std::string, std::string> declared;  // envFrom + env: $(VAR) in command and args
  std::vector<EnvWarning> warnings;             // to record as Warning events on the pod
};

// `pod_ips`: the sandbox's IPs (status.podIP / podIPs). `services`: the Service variables
// (service_env.h): visible to $(VAR) after the declared ones, added for names the container
// does not declare.
Result<ContainerEnv> container_env(const nlohmann::json& pod, const nlohmann::json& container,
                                   const std::vector<std::string>& image_env, ConfigSource& objects,
                                   const NodeFacts& node, const std::vector<std::string>& pod_ips,
                                   const std::map<std::string, std::string>& services = {});

// Upstream's relaxed environment variable name rule: printable ASCII except '=', not empty.
bool valid_env_name(std::string_view name);

}  // namespace k3c::kubelet
