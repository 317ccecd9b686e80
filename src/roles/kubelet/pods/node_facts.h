// What the pod side of the kubelet needs to know about its own node: its name, its addresses
// (status.hostIP, and the pod IPs of hostNetwork pods) and its allocatable resources (the
// limits a container without its own limit reads through resourceFieldRef).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace k3c::kubelet {

struct NodeFacts {
  std::string name;
  std::vector<std::string> host_ips;  // primary first
  // node.status.allocatable: "cpu", "memory", "ephemeral-storage" -> quantity text.
  std::map<std::string, std::string> allocatable;
};

}  // namespace k3c::kubelet
