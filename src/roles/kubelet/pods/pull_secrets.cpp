// Registry credentials from imagePullSecrets (see pull_secrets.h).
#include "roles/kubelet/pods/pull_secrets.h"

#include <algorithm>

#include "core/base64.h"

namespace k3c::kubelet {

using nlohmann::json;

namespace {

// "https://index.docker.io/v1/" -> ("docker.io", ""); "reg:5000/team/" -> ("reg:5000", "team").
std::pair<std::string, std::string> split_key(std::string key) {
  for (const char* scheme : {"https://", "http://"}) {
    if (key.rfind(scheme, 0) == 0) key = key.substr(std::string(scheme).size());
  }
  while (!key.empty() && key.back() == '/') key.pop_back();
  const auto slash = key.find('/');
  std::string host = key.substr(0, slash);
  std::string path = slash == std::string::npos ? "" : key.substr(slash + 1);
  if (host == "index.docker.io" || host == "registry-1.docker.io") host = "docker.io";
  if (host == "docker.io" && path == "v1") path.clear();  // the legacy Docker Hub key
  return {host, path};
}

}  // namespace

std::vector<runtime::RegistryAuth> matching_auths(const json& docker_config,
                                                  const runtime::Reference& image) {
  const json* auths = &docker_config;
  if (docker_config.contains("auths") && docker_config["auths"].is_object()) {
    auths = &docker_config["auths"];
  }
  std::vector<std::pair<size_t, runtime::RegistryAuth>> found;
  if (!auths->is_object()) return {};
  for (const auto& [key, entry] : auths->items()) {
    if (!entry.is_object()) continue;
    auto [host, path] = split_key(key);
    if (host != image.domain) continue;
    if (!path.empty() && image.path != path && image.path.rfind(path + "/", 0) != 0) continue;
    runtime::RegistryAuth auth;
    auth.username = entry.value("username", "");
    auth.password = entry.value("password", "");
    auth.identity_token = entry.value("identitytoken", "");
    if (auto decoded = base64_decode(entry.value("auth", "")); decoded && !decoded->empty()) {
      const auto colon = decoded->find(':');
      auth.username = decoded->substr(0, colon);
      auth.password = colon == std::string::npos ? "" : decoded->substr(colon + 1);
    }
    found.push_back({key.size(), std::move(auth)});
  }
  std::stable_sort(found.begin(), found.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<runtime::RegistryAuth> out;
  for (auto& f : found) out.push_back(std::move(f.second));
  return out;
}

PullCredentials pull_credentials(const json& pod, const runtime::Reference& image,
                                 ConfigSource& objects) {
  PullCredentials out;
  const json spec = pod.value("spec", json::object());
  const std::string ns = pod.value("metadata", json::object()).value("namespace", "");
  for (const auto& ref : spec.value("imagePullSecrets", json::array())) {
    const std::string name = ref.value("name", "");
    if (name.empty()) continue;  // the API allows it; upstream ignores it
    auto secret = objects.secret(ns, name);
    if (!secret.is_ok()) {
      out.missing_secrets.push_back(name);
      continue;
    }
    const json data = secret->value("data", json::object());
    for (const char* key : {".dockerconfigjson", ".dockercfg"}) {
      if (!data.contains(key) || !data[key].is_string()) continue;
      auto text = base64_decode(data[key].get<std::string>());
      if (!text) continue;
      json config = json::parse(*text, nullptr, false);
      if (config.is_discarded()) continue;
      for (auto& auth : matching_auths(config, image)) out.auths.push_back(std::move(auth));
    }
  }
  return out;
}

}  // namespace k3c::kubelet
