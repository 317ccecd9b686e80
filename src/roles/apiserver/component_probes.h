// The control-plane components `kubectl get componentstatuses` reports (upstream's
// ComponentStatus, deprecated but still served): each name with a probe of its health,
// registered by whoever runs the component (cli/server.cpp for the in-process scheduler and
// controller manager; the apiserver for its datastore, etcd-0).
//
// Thread-safety: every method from any thread.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"

namespace k3c::apiserver {

class ComponentProbes {
 public:
  using Probe = std::function<Status()>;
  void add(std::string name, Probe probe) {
    std::lock_guard lock(mu_);
    probes_.emplace_back(std::move(name), std::move(probe));
  }
  // Each component's name and health, in the order added.
  std::vector<std::pair<std::string, Status>> run() const {
    std::vector<std::pair<std::string, Probe>> probes;
    {
      std::lock_guard lock(mu_);
      probes = probes_;
    }
    std::vector<std::pair<std::string, Status>> out;
    for (auto& [name, probe] : probes) out.emplace_back(name, probe());
    return out;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::pair<std::string, Probe>> probes_;
};

}  // namespace k3c::apiserver
