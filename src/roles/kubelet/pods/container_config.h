// The runtime's ContainerConfig for one container of a pod: argv and env already resolved
// (command.h, container_env.h), resources as cgroup values (api/pod_qos.h and
// runtime/cgroups/resource_math.h: cpu request -> shares, cpu limit -> CFS quota, memory
// limit), the security context (container over pod), labels that tie
// the container to its pod, and a hash of its spec (a change restarts it).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/status.h"
#include "runtime/runtime_service.h"

namespace k3c::kubelet {

struct ResolvedProcess {
  std::vector<std::string> argv;
  std::vector<std::string> env;  // "NAME=value"
};

// `seccomp_root`: where a Localhost seccomp profile's localhostProfile is looked up.
runtime::ContainerConfig container_config(const nlohmann::json& pod,
                                          const nlohmann::json& container, uint32_t attempt,
                                          ResolvedProcess process,
                                          const std::string& seccomp_root);

// A security setting container_config cannot honour, as the error the container then waits
// with (CreateContainerError): a Localhost seccomp profile without a localhostProfile, or one
// that climbs out of the profile directory (the API server refuses both; a static pod is not
// checked by it).
Status unsupported_security(const nlohmann::json& pod, const nlohmann::json& container);

// runAsNonRoot (container over pod), as upstream's kubelet checks it before it creates the
// container (the error is the container's CreateContainerConfigError): a runAsUser of 0
// breaks it; without a runAsUser the image's USER decides: empty or uid 0 runs as root, a
// user name cannot be verified. `image_user` is the image config's User ("name", "uid",
// "uid:gid").
Status verify_run_as_non_root(const nlohmann::json& pod, const nlohmann::json& container,
                              const std::string& image_user);

// A stable hash (FNV-1a, hex) of the container's spec, kept in the container's labels.
std::string container_spec_hash(const nlohmann::json& container);

}  // namespace k3c::kubelet
