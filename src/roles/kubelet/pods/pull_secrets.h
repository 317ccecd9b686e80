// Registry credentials for an image from the pod's imagePullSecrets, as upstream's kubelet
// finds them (credentialprovider's keyring): Secrets of type kubernetes.io/dockerconfigjson
// (`.dockerconfigjson`: {"auths": {...}}) or kubernetes.io/dockercfg (`.dockercfg`), each
// entry keyed by a registry host with an optional path ("https://index.docker.io/v1/",
// "registry.example:5000/team"); an entry matches an image whose registry is the host
// (index.docker.io = docker.io) and whose repository starts with the path. `auth` is base64
// "user:password".
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "roles/kubelet/pods/config_source.h"
#include "runtime/reference.h"
#include "runtime/runtime_service.h"

namespace k3c::kubelet {

struct PullCredentials {
  std::vector<runtime::RegistryAuth> auths;  // to try in order; none = anonymous
  std::vector<std::string> missing_secrets;  // named by the pod, not found
};

PullCredentials pull_credentials(const nlohmann::json& pod, const runtime::Reference& image,
                                 ConfigSource& objects);

// The entries of one docker config ({"auths": {...}} or the legacy flat map) for `image`,
// longest (most specific) key first.
std::vector<runtime::RegistryAuth> matching_auths(const nlohmann::json& docker_config,
                                                  const runtime::Reference& image);

}  // namespace k3c::kubelet
