// Pod IPs of the hollow nodes: each node hands out addresses of its spec.podCIDR (from node
// IPAM) to the pods bound to it, the lowest free one first, skipping the network address,
// the first host (the bridge's gateway, as flannel's cni0 takes .1) and the broadcast address.
// An address is held by the pod's uid until released.
//
// Thread-safety: every method from any thread.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "core/status.h"

namespace k3c::hollow {

// A pod IP (dotted quad) inside a pod CIDR ("10.42.3.0/24"); false for anything unparsable.
bool address_in(std::string_view ip, std::string_view cidr);

class PodAddresses {
 public:
  // The address held by `uid` on `node`, or a new one from `cidr`. kInvalid for a CIDR that
  // is not IPv4, kServiceUnavailable when the range is full.
  Result<std::string> assign(const std::string& node, const std::string& cidr,
                             const std::string& uid);
  void release(const std::string& uid);
  size_t size() const;

 private:
  struct Held {
    std::string node;
    uint32_t address;
  };
  mutable std::mutex mu_;
  std::map<std::string, Held> by_uid_;                 // guarded by mu_
  std::map<std::string, std::set<uint32_t>> in_use_;  // node -> addresses; guarded by mu_
};

}  // namespace k3c::hollow
