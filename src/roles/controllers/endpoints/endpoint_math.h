// What a Service's endpoints are, as pure functions of the Service and its selected pods
// (upstream's endpoints and endpointslice controllers share these rules):
// - a pod counts when it has an IP and is not Succeeded/Failed; a pod being deleted counts
//   only in EndpointSlices (terminating) or with publishNotReadyAddresses;
// - a service port's targetPort is a number, or a container port name looked up in the pod
//   (a pod without that name is left out for that port);
// - hostname when the pod's spec.hostname is set and spec.subdomain names the service.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace k3c::controllers {

using nlohmann::json;

struct PodEndpoint {
  std::string ip;
  std::string node_name;
  std::string hostname;
  bool ready = false;
  bool serving = false;
  bool terminating = false;
  json target_ref;  // {kind: Pod, namespace, name, uid}
};

// The pod as an endpoint of `service`, or nullopt when it is not one (no IP, terminal, or
// being deleted while `include_terminating` is false).
std::optional<PodEndpoint> pod_endpoint(const json& pod, const json& service,
                                        bool include_terminating);

// The port the service port reaches on `pod`, or nullopt when a named targetPort is not
// among the pod's container ports.
std::optional<int> resolve_target_port(const json& service_port, const json& pod);

// core/v1 Endpoints subsets: addresses grouped by identical port lists, ready ones in
// `addresses`, the others in `notReadyAddresses` (all ready with publishNotReadyAddresses),
// sorted by IP.
json endpoints_subsets(const json& service, const std::vector<json>& pods);

// discovery.k8s.io/v1 slices' contents: {ports, endpoints} groups of at most `max_per_slice`
// endpoints, one series per distinct port list, sorted.
struct SliceContent {
  json ports = json::array();
  json endpoints = json::array();
  std::string address_type;  // IPv4 or IPv6; "" for "from the first endpoint"
};
// `zones`: node name -> its topology.kubernetes.io/zone, for the endpoints' zone.
std::vector<SliceContent> desired_slices(const json& service, const std::vector<json>& pods,
                                         const std::map<std::string, std::string>& zones = {},
                                         size_t max_per_slice = 100);

// The slices mirroring a selector-less Service's own Endpoints (upstream's
// endpointslicemirroring): per subset and address family, `addresses` as ready endpoints and
// `notReadyAddresses` as not ready ones (hostname, nodeName, targetRef kept), the subset's
// ports; at most 1000 addresses of a subset, `max_per_slice` endpoints per slice.
std::vector<SliceContent> mirrored_slices(const json& endpoints, size_t max_per_slice = 100);

}  // namespace k3c::controllers
