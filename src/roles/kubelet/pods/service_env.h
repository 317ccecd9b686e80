// The Service environment variables every container gets, as upstream's kubelet makes them
// (Docker-links style): for each Service with a cluster IP in the pod's namespace (when
// spec.enableServiceLinks, default true) and always for the `kubernetes` Service of the
// default namespace:
//   MY_SVC_SERVICE_HOST=10.43.0.5      MY_SVC_SERVICE_PORT=80      MY_SVC_SERVICE_PORT_HTTP=80
//   MY_SVC_PORT=tcp://10.43.0.5:80     MY_SVC_PORT_80_TCP=tcp://10.43.0.5:80
//   MY_SVC_PORT_80_TCP_PROTO=tcp       MY_SVC_PORT_80_TCP_PORT=80 MY_SVC_PORT_80_TCP_ADDR=10.43.0.5
// (the name upper-cased, '-' -> '_'; the first port is the Service's port).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace k3c::kubelet {

std::map<std::string, std::string> service_env(const nlohmann::json& pod,
                                               const std::vector<nlohmann::json>& services);

}  // namespace k3c::kubelet
