// Service environment variables (see service_env.h).
#include "roles/kubelet/pods/service_env.h"

#include <algorithm>
#include <cctype>

namespace k3c::kubelet {

using nlohmann::json;

namespace {

std::string env_name(std::string name) {
  for (char& c : name) c = c == '-' ? '_' : static_cast<char>(std::toupper(c));
  return name;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(c));
  return s;
}

void add_service(const json& service, std::map<std::string, std::string>& out) {
  const json spec = service.value("spec", json::object());
  const std::string ip = spec.value("clusterIP", "");
  const json ports = spec.value("ports", json::array());
  const std::string name = env_name(service["metadata"].value("name", ""));
  out[name + "_SERVICE_HOST"] = ip;
  if (ports.empty()) return;
  out[name + "_SERVICE_PORT"] = std::to_string(ports[0].value("port", 0));
  for (const auto& p : ports) {
    const std::string port_name = p.value("name", "");
    if (!port_name.empty()) {
      out[name + "_SERVICE_PORT_" + env_name(port_name)] = std::to_string(p.value("port", 0));
    }
  }
  const json& first = ports[0];
  out[name + "_PORT"] = lower(first.value("protocol", "TCP")) + "://" + ip + ":" +
                        std::to_string(first.value("port", 0));
  for (const auto& p : ports) {
    const std::string port = std::to_string(p.value("port", 0));
    const std::string proto = p.value("protocol", "TCP");
    const std::string prefix = name + "_PORT_" + port + "_" + env_name(proto);
    out[prefix] = lower(proto) + "://" + ip + ":" + port;
    out[prefix + "_PROTO"] = lower(proto);
    out[prefix + "_PORT"] = port;
    out[prefix + "_ADDR"] = ip;
  }
}

}  // namespace

std::map<std::string, std::string> service_env(const json& pod, const std::vector<json>& services) {
  const std::string ns = pod.value("metadata", json::object()).value("namespace", "");
  const json spec = pod.value("spec", json::object());
  const bool links = !spec.contains("enableServiceLinks") ||
                     !spec["enableServiceLinks"].is_boolean() ||
                     spec["enableServiceLinks"].get<bool>();
  std::map<std::string, const json*> chosen;  // by name: the kubernetes Service wins
  for (const auto& s : services) {
    const json meta = s.value("metadata", json::object());
    const std::string ip = s.value("spec", json::object()).value("clusterIP", "");
    if (ip.empty() || ip == "None") continue;
    const std::string name = meta.value("name", "");
    const std::string service_ns = meta.value("namespace", "");
    if (service_ns == "default" && name == "kubernetes") {
      chosen[name] = &s;
    } else if (service_ns == ns && links && !chosen.count(name)) {
      chosen[name] = &s;
    }
  }
  std::map<std::string, std::string> out;
  for (const auto& [name, s] : chosen) add_service(*s, out);
  return out;
}

}  // namespace k3c::kubelet
