#include "roles/controllers/endpoints/endpoint_math.h"

#include <algorithm>
#include <map>

#include "api/json_fields.h"
#include "roles/controllers/common/objects.h"

namespace k3c::controllers {
namespace {

using api::member;
using api::text;

bool publish_not_ready(const json& service) {
  const json& v = member(member(service, "spec"), "publishNotReadyAddresses");
  return v.is_boolean() && v.get<bool>();
}

// The endpoint ports of `service` on `pod`, in service port order; pods lacking a named
// port are left out of that port (upstream logs and skips it).
json pod_ports(const json& service, const json& pod) {
  json ports = json::array();
  const json& list = member(member(service, "spec"), "ports");
  if (!list.is_array()) return ports;
  for (const json& sp : list) {
    auto port = resolve_target_port(sp, pod);
    if (!port) continue;
    json p = {{"port", *port}};
    const std::string name = text(sp, "name");
    p["name"] = name;
    std::string protocol = text(sp, "protocol");
    p["protocol"] = protocol.empty() ? "TCP" : protocol;
    if (const std::string app = text(sp, "appProtocol"); !app.empty()) p["appProtocol"] = app;
    ports.push_back(std::move(p));
  }
  return ports;
}

json address_of(const PodEndpoint& e) {
  json a = {{"ip", e.ip}, {"targetRef", e.target_ref}};
  if (!e.node_name.empty()) a["nodeName"] = e.node_name;
  if (!e.hostname.empty()) a["hostname"] = e.hostname;
  return a;
}

bool by_ip(const json& a, const json& b) {
  return a.value("ip", "") < b.value("ip", "") ||
         (a.value("ip", "") == b.value("ip", "") &&
          a["targetRef"].value("name", "") < b["targetRef"].value("name", ""));
}

}  // namespace

std::optional<int> resolve_target_port(const json& service_port, const json& pod) {
  const json& target = member(service_port, "targetPort");
  if (target.is_number_integer()) return target.get<int>();
  if (target.is_string()) {
    const std::string name = target.get<std::string>();
    for (const char* list : {"containers", "initContainers"}) {
      const json& containers = member(member(pod, "spec"), list);
      if (!containers.is_array()) continue;
      for (const json& c : containers) {
        const json& ports = member(c, "ports");
        if (!ports.is_array()) continue;
        for (const json& p : ports) {
          const json& number = member(p, "containerPort");
          if (text(p, "name") == name && number.is_number_integer()) return number.get<int>();
        }
      }
    }
    return std::nullopt;
  }
  const json& port = member(service_port, "port");  // no targetPort: the same as port
  if (port.is_number_integer()) return port.get<int>();
  return std::nullopt;
}

std::optional<PodEndpoint> pod_endpoint(const json& pod, const json& service,
                                        bool include_terminating) {
  const json& status = member(pod, "status");
  const std::string ip = text(status, "podIP");
  const std::string phase = text(status, "phase");
  if (ip.empty() || phase == "Succeeded" || phase == "Failed") return std::nullopt;
  PodEndpoint e;
  e.terminating = being_deleted(pod);
  if (e.terminating && !include_terminating && !publish_not_ready(service)) return std::nullopt;
  e.ip = ip;
  const json& spec = member(pod, "spec");
  e.node_name = text(spec, "nodeName");
  const std::string hostname = text(spec, "hostname");
  if (!hostname.empty() && text(spec, "subdomain") == name_of(service)) e.hostname = hostname;
  e.serving = pod_ready(pod) || publish_not_ready(service);
  e.ready = e.serving && !e.terminating;
  e.target_ref = {{"kind", "Pod"},
                  {"namespace", namespace_of(pod)},
                  {"name", name_of(pod)},
                  {"uid", uid_of(pod)}};
  return e;
}

json endpoints_subsets(const json& service, const std::vector<json>& pods) {
  // port list (as JSON text) -> {ports, ready addresses, not ready addresses}
  struct Group {
    json ports, ready = json::array(), not_ready = json::array();
  };
  std::map<std::string, Group> groups;
  for (const json& pod : pods) {
    auto e = pod_endpoint(pod, service, false);
    if (!e) continue;
    json ports = pod_ports(service, pod);
    if (ports.empty() && !member(member(service, "spec"), "ports").empty()) continue;
    for (json& p : ports) {
      if (p["name"] == "") p.erase("name");
    }
    Group& g = groups[ports.dump()];
    g.ports = ports;
    (e->ready ? g.ready : g.not_ready).push_back(address_of(*e));
  }
  json subsets = json::array();
  for (auto& [key, g] : groups) {
    json subset = json::object();
    std::sort(g.ready.begin(), g.ready.end(), by_ip);
    std::sort(g.not_ready.begin(), g.not_ready.end(), by_ip);
    if (!g.ready.empty()) subset["addresses"] = g.ready;
    if (!g.not_ready.empty()) subset["notReadyAddresses"] = g.not_ready;
    if (!g.ports.empty()) subset["ports"] = g.ports;
    subsets.push_back(std::move(subset));
  }
  return subsets;
}

std::vector<SliceContent> desired_slices(const json& service, const std::vector<json>& pods,
                                         const std::map<std::string, std::string>& zones,
                                         size_t max_per_slice) {
  std::map<std::string, std::pair<json, std::vector<json>>> by_ports;
  for (const json& pod : pods) {
    auto e = pod_endpoint(pod, service, true);
    if (!e) continue;
    json ports = pod_ports(service, pod);
    json endpoint = {
        {"addresses", json::array({e->ip})},
        {"conditions",
         {{"ready", e->ready}, {"serving", e->serving}, {"terminating", e->terminating}}},
        {"targetRef", e->target_ref}};
    if (!e->node_name.empty()) endpoint["nodeName"] = e->node_name;
    if (!e->hostname.empty()) endpoint["hostname"] = e->hostname;
    if (auto zone = zones.find(e->node_name); zone != zones.end()) endpoint["zone"] = zone->second;
    auto& [group_ports, endpoints] = by_ports[ports.dump()];
    group_ports = ports;
    endpoints.push_back(std::move(endpoint));
  }
  std::vector<SliceContent> slices;
  for (auto& [key, group] : by_ports) {
    auto& endpoints = group.second;
    std::sort(endpoints.begin(), endpoints.end(), [](const json& a, const json& b) {
      return std::pair(a["addresses"][0].get<std::string>(), a["targetRef"].value("name", "")) <
             std::pair(b["addresses"][0].get<std::string>(), b["targetRef"].value("name", ""));
    });
    for (size_t i = 0; i < endpoints.size(); i += max_per_slice) {
      SliceContent slice;
      slice.ports = group.first;
      for (size_t j = i; j < std::min(endpoints.size(), i + max_per_slice); ++j) {
        slice.endpoints.push_back(endpoints[j]);
      }
      slices.push_back(std::move(slice));
    }
  }
  return slices;
}

std::vector<SliceContent> mirrored_slices(const json& endpoints, size_t max_per_slice) {
  constexpr size_t kMaxAddressesPerSubset = 1000;  // upstream's maxEndpointsPerSubset
  std::vector<SliceContent> slices;
  for (const json& subset : member(endpoints, "subsets")) {
    json ports = json::array();
    for (const json& p : member(subset, "ports")) {
      json port = json::object();
      for (const char* f : {"name", "port", "protocol", "appProtocol"}) {
        if (p.is_object() && p.contains(f)) port[f] = p[f];
      }
      ports.push_back(std::move(port));
    }
    // Per family: address type -> endpoints, ready ones first as upstream lists them.
    std::map<std::string, std::vector<json>> by_family;
    size_t taken = 0;
    for (const auto& [field, ready] :
         {std::pair{"addresses", true}, {"notReadyAddresses", false}}) {
      for (const json& a : member(subset, field)) {
        const std::string ip = text(a, "ip");
        if (ip.empty() || taken == kMaxAddressesPerSubset) continue;
        ++taken;
        json endpoint = {{"addresses", json::array({ip})}, {"conditions", {{"ready", ready}}}};
        for (const char* f : {"hostname", "nodeName", "targetRef"}) {
          if (a.is_object() && a.contains(f)) endpoint[f] = a[f];
        }
        by_family[ip.find(':') == std::string::npos ? "IPv4" : "IPv6"].push_back(
            std::move(endpoint));
      }
    }
    for (auto& [family, list] : by_family) {
      for (size_t i = 0; i < list.size(); i += max_per_slice) {
        SliceContent slice;
        slice.ports = ports;
        slice.address_type = family;
        for (size_t j = i; j < std::min(list.size(), i + max_per_slice); ++j) {
          slice.endpoints.push_back(list[j]);
        }
        slices.push_back(std::move(slice));
      }
    }
  }
  return slices;
}

}  // namespace k3c::controllers
