// Handlers reachable in-process by name. The API server reaches the kubelet of its own node
// this way (pods/log, exec, node proxy) instead of over HTTPS to port 10250: the kubelet
// role registers its handler under its node name when it starts and removes it when it stops.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "http/http.h"

namespace k3c::http {

// Thread-safe.
class LocalEndpoints {
 public:
  void add(const std::string& name, Handler handler) {
    std::lock_guard lock(mu_);
    handlers_[name] = std::move(handler);
  }
  void remove(const std::string& name) {
    std::lock_guard lock(mu_);
    handlers_.erase(name);
  }
  std::optional<Handler> find(const std::string& name) const {
    std::lock_guard lock(mu_);
    auto it = handlers_.find(name);
    if (it == handlers_.end()) return std::nullopt;
    return it->second;
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, Handler> handlers_;
};

}  // namespace k3c::http
