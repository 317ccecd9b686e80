// Printers of networking.k8s.io and discovery.k8s.io, following upstream's v1.32 printers.
#include <set>

#include "roles/apiserver/printer_cells.h"

namespace k3c::apiserver::printers {
namespace {

// The first three hosts of the rules, "+ N more..." counting every rule, "*" for none.
std::string ingress_hosts(const json& o) {
  const json& rules = at(o, {"spec", "rules"});
  if (!rules.is_array()) return "*";
  std::vector<std::string> shown;
  bool more = false;
  for (const auto& r : rules) {
    if (shown.size() == 3) more = true;
    if (!more && !str(r, {"host"}).empty()) shown.push_back(str(r, {"host"}));
  }
  if (shown.empty()) return "*";
  if (more) return join(shown) + " + " + std::to_string(rules.size() - 3) + " more...";
  return join(shown);
}

std::string ingress_address(const json& o) {
  std::set<std::string> addrs;  // sorted and unique, as upstream's string set
  const json& ingress = at(o, {"status", "loadBalancer", "ingress"});
  if (ingress.is_array()) {
    for (const auto& i : ingress) {
      std::string v = str(i, {"ip"});
      if (v.empty()) v = str(i, {"hostname"});
      if (!v.empty()) addrs.insert(v);
    }
  }
  return join({addrs.begin(), addrs.end()});
}

Cells ingress_cells(const json& o, WallTime now) {
  return {name_of(o),         str(o, {"spec", "ingressClassName"}, "<none>"),   ingress_hosts(o),
          ingress_address(o), count(o, {"spec", "tls"}) > 0 ? "80, 443" : "80", age_of(o, now)};
}

Cells ingress_class_cells(const json& o, WallTime now) {
  std::string parameters = "<none>";
  const json& p = at(o, {"spec", "parameters"});
  if (p.is_object()) {
    parameters = str(p, {"kind"});
    if (at(p, {"apiGroup"}).is_string()) parameters += "." + str(p, {"apiGroup"});
    parameters += "/" + str(p, {"name"});
  }
  return {name_of(o), str(o, {"spec", "controller"}), parameters, age_of(o, now)};
}

Cells network_policy_cells(const json& o, WallTime now) {
  return {name_of(o), format_label_selector(at(o, {"spec", "podSelector"})), age_of(o, now)};
}

Cells endpoint_slice_cells(const json& o, WallTime now) {
  std::vector<std::string> ports, addresses;
  const json& ps = at(o, {"ports"});
  if (ps.is_array()) {
    for (const auto& p : ps) {
      if (at(p, {"port"}).is_number_integer()) {
        ports.push_back(std::to_string(num(p, {"port"})));
      } else {
        ports.push_back(str(p, {"name"}, "*"));
      }
    }
  }
  const json& eps = at(o, {"endpoints"});
  if (eps.is_array()) {
    for (const auto& e : eps) {
      const json& as = at(e, {"addresses"});
      if (as.is_array())
        for (const auto& a : as) addresses.push_back(a.is_string() ? a.get<std::string>() : "");
    }
  }
  return {name_of(o), str(o, {"addressType"}), list_with_more(ports, 3, "<unset>"),
          list_with_more(addresses, 3, "<unset>"), age_of(o, now)};
}

}  // namespace

void add_networking_printers(PrinterMap& m) {
  m[{"networking.k8s.io", "Ingress"}] = {
      {name_column(), text("Class", "The ingress class."), text("Hosts", "Hosts the rules match."),
       text("Address", "Load balancer addresses of the ingress."),
       text("Ports", "Ports served (443 with TLS)."), age_column()},
      ingress_cells};
  m[{"networking.k8s.io", "IngressClass"}] = {
      {name_column(), text("Controller", "The controller that implements the class."),
       text("Parameters", "The resource holding the class parameters."), age_column()},
      ingress_class_cells};
  m[{"networking.k8s.io", "NetworkPolicy"}] = {
      {name_column(), text("Pod-Selector", "The pods the policy applies to."), age_column()},
      network_policy_cells};
  m[{"discovery.k8s.io", "EndpointSlice"}] = {
      {name_column(), text("AddressType", "IPv4, IPv6 or FQDN."),
       text("Ports", "Ports of the endpoints."), text("Endpoints", "Addresses of the endpoints."),
       age_column()},
      endpoint_slice_cells};
}

}  // namespace k3c::apiserver::printers
