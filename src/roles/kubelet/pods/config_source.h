// Where the kubelet reads the ConfigMaps and Secrets a pod refers to (env, and later
// volumes). The pod manager reads them from the API; tests hand in a map.
//
// Thread-safety: implementations are called from any pod worker at once.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/status.h"

namespace k3c::kubelet {

class ConfigSource {
 public:
  virtual ~ConfigSource() = default;
  // The object, kNotFound when it does not exist; other errors as they come.
  virtual Result<nlohmann::json> config_map(const std::string& ns, const std::string& name) = 0;
  virtual Result<nlohmann::json> secret(const std::string& ns, const std::string& name) = 0;
};

}  // namespace k3c::kubelet
