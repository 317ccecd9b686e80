// ConfigMaps and Secrets for kubelet unit tests, kept in maps keyed "namespace/name".
#pragma once

#include <map>
#include <mutex>
#include <string>

#include "roles/kubelet/pods/config_source.h"

namespace k3c::kubelet::testing {

class MapConfigSource final : public ConfigSource {
 public:
  void put_config_map(const std::string& ns, const std::string& name, nlohmann::json data) {
    std::lock_guard lock(mu_);
    config_maps_[ns + "/" + name] = {{"metadata", {{"name", name}, {"namespace", ns}}},
                                     {"data", std::move(data)}};
  }
  // `data` values are base64, as on the wire.
  void put_secret(const std::string& ns, const std::string& name, nlohmann::json data) {
    std::lock_guard lock(mu_);
    secrets_[ns + "/" + name] = {{"metadata", {{"name", name}, {"namespace", ns}}},
                                 {"data", std::move(data)}};
  }
  Result<nlohmann::json> config_map(const std::string& ns, const std::string& name) override {
    return find(config_maps_, ns, name, "configmaps");
  }
  Result<nlohmann::json> secret(const std::string& ns, const std::string& name) override {
    return find(secrets_, ns, name, "secrets");
  }

 private:
  Result<nlohmann::json> find(const std::map<std::string, nlohmann::json>& map,
                              const std::string& ns, const std::string& name,
                              const std::string& plural) {
    std::lock_guard lock(mu_);
    auto it = map.find(ns + "/" + name);
    if (it == map.end()) return error(Code::kNotFound, plural + " \"" + name + "\" not found");
    return it->second;
  }
  std::mutex mu_;
  std::map<std::string, nlohmann::json> config_maps_, secrets_;
};

}  // namespace k3c::kubelet::testing
