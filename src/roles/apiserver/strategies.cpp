// Per-resource rules (see strategies.h).
#include "roles/apiserver/strategies.h"

#include <arpa/inet.h>

#include <algorithm>
#include <set>

#include "api/pod_qos.h"
#include "roles/apiserver/csr_strategy.h"

namespace k3c::apiserver {
namespace {

using nlohmann::json;
using SteadyClock = std::chrono::steady_clock;

// How long a handed-out address stays reserved: far longer than a create takes to reach
// the watch cache.
constexpr auto kReservation = std::chrono::seconds(30);
// Events expire an hour after their last write, through the store's leases.
constexpr int64_t kEventTtlSeconds = 3600;

std::optional<uint32_t> parse_ipv4(const std::string& text) {
  in_addr a{};
  if (inet_pton(AF_INET, text.c_str(), &a) != 1) return std::nullopt;
  return ntohl(a.s_addr);
}

std::string format_ipv4(uint32_t ip) {
  in_addr a{htonl(ip)};
  char buf[INET_ADDRSTRLEN];
  inet_ntop(AF_INET, &a, buf, sizeof buf);
  return buf;
}

ApiError service_invalid(const json& svc, std::string field, std::string message,
                         std::string reason = "FieldValueInvalid") {
  std::string name = svc["metadata"].value("name", "");
  return invalid("", "Service", name, {{std::move(reason), std::move(message), std::move(field)}});
}

}  // namespace

Strategies::Strategies(WatchCache& cache, ClusterNetworks networks)
    : cache_(cache), networks_(std::move(networks)) {
  auto slash = networks_.service_cidr.find('/');
  network_ = parse_ipv4(networks_.service_cidr.substr(0, slash)).value_or(0);
  prefix_ = slash == std::string::npos ? 32 : std::stoi(networks_.service_cidr.substr(slash + 1));
}

int64_t Strategies::lease_seconds(const api::Resource& r) const {
  return r.plural == "events" ? kEventTtlSeconds : 0;
}

std::optional<ApiError> Strategies::before_create(const api::Resource& r, json& object,
                                                  const WriteContext& write) {
  if (r.group.empty() && r.plural == "services") return prepare_service(object, nullptr);
  if (csr::is_csr(r)) {
    csr::prepare_create(object, write.user);
    return csr::validate_create(object);
  }
  // As upstream's pod PrepareForCreate: the class is fixed at create, from the resources as
  // defaulted and admitted (LimitRanger may have added some); the kubelet reads it back.
  if (r.group.empty() && r.plural == "pods" && object.is_object()) {
    json& status = object["status"];
    if (!status.is_object()) status = json::object();
    status["qosClass"] = std::string(api::qos_class_name(api::compute_qos_class(object)));
  }
  return std::nullopt;
}

std::optional<ApiError> Strategies::before_update(const api::Resource& r, json& object,
                                                  const json& old, const WriteContext& write) {
  if (r.group.empty() && r.plural == "services") return prepare_service(object, &old);
  if (csr::is_csr(r)) return csr::prepare_update(object, old, write.subresource, write.now);
  return std::nullopt;
}

std::optional<ApiError> Strategies::prepare_service(json& svc, const json* old) {
  if (svc["spec"].is_null()) svc["spec"] = json::object();
  if (!svc["spec"].is_object()) return bad_request("Service spec must be an object");
  json& spec = svc["spec"];
  std::string name = svc["metadata"].value("name", "");
  // Field defaults and checks (type, ports, protocols, traffic policies) ran before, from the
  // schemas (api/validation.h); what is left needs cluster state.
  std::string type = spec.value("type", "ClusterIP");
  if (type == "ExternalName") return std::nullopt;
  // clusterIP: kept from before (immutable), "None" (headless), a requested address, or
  // allocated.
  std::string old_ip = old ? (*old)["spec"].value("clusterIP", "") : "";
  std::string ip = spec.value("clusterIP", "");
  if (old && ip.empty()) ip = old_ip;
  if (old && ip != old_ip) {
    return service_invalid(svc, "spec.clusterIPs[0]",
                           "Invalid value: []string{\"" + ip + "\"}: may not change once set");
  }
  if (!old && ip.empty()) {
    auto allocated = allocate_ip();
    if (!allocated) {
      return api_error(Code::kInternal, "failed to allocate a serviceIP: range is full");
    }
    ip = *allocated;
  } else if (!old && ip != "None") {
    auto v = parse_ipv4(ip);
    uint32_t mask = prefix_ == 0 ? 0 : ~uint32_t{0} << (32 - prefix_);
    if (!v || (*v & mask) != network_) {
      return service_invalid(svc, "spec.clusterIPs",
                             "Invalid value: []string{\"" + ip + "\"}: failed to allocate IP " +
                                 ip + ": the provided IP (" + ip +
                                 ") is not in the valid range. The range of valid IPs is " +
                                 networks_.service_cidr);
    }
  }
  spec["clusterIP"] = ip;
  spec["clusterIPs"] = json::array({ip});
  if (ip != "None") {
    spec["ipFamilies"] = {"IPv4"};
    spec["ipFamilyPolicy"] = spec.value("ipFamilyPolicy", "SingleStack");
  }
  if ((type == "NodePort" || type == "LoadBalancer") && spec["ports"].is_array()) {
    for (auto& p : spec["ports"]) {
      if (!p.is_object()) continue;
      if (p.contains("nodePort") && p["nodePort"].is_number_integer()) {
        int port = p["nodePort"];
        if (port < networks_.node_port_first || port > networks_.node_port_last) {
          return service_invalid(
              svc, "spec.ports[0].nodePort",
              "Invalid value: " + std::to_string(port) +
                  ": provided port is not in the valid range. The range of valid ports is " +
                  std::to_string(networks_.node_port_first) + "-" +
                  std::to_string(networks_.node_port_last));
        }
        continue;
      }
      auto port = allocate_node_port();
      if (!port) {
        return api_error(Code::kInternal, "failed to allocate a nodePort: range is full");
      }
      p["nodePort"] = *port;
    }
  }
  return std::nullopt;
}

// Drops reservations old enough that their Services are in the cache. Called with mu_ held.
void Strategies::drop_stale_reservations() {
  auto now = SteadyClock::now();
  std::erase_if(reserved_ips_, [&](const auto& e) { return now - e.second > kReservation; });
  std::erase_if(reserved_ports_, [&](const auto& e) { return now - e.second > kReservation; });
}

Strategies::Used Strategies::used_by_services() const {
  Used used;
  auto services = cache_.list({"/registry/services/specs/", {}, {}}, -1, "", 0);
  if (!services.is_ok()) return used;
  for (const auto& s : services->items) {
    json o = json::parse(s->json.text(), nullptr, false);
    if (!o.is_object() || !o["spec"].is_object()) continue;
    if (auto ip = parse_ipv4(o["spec"].value("clusterIP", ""))) used.ips.insert(*ip);
    if (!o["spec"]["ports"].is_array()) continue;
    for (const auto& p : o["spec"]["ports"]) {
      if (p.contains("nodePort") && p["nodePort"].is_number_integer())
        used.ports.insert(p["nodePort"].get<int>());
    }
  }
  return used;
}

std::optional<std::string> Strategies::allocate_ip() {
  std::lock_guard lock(mu_);
  drop_stale_reservations();
  Used used = used_by_services();
  uint64_t size = prefix_ >= 32 ? 1 : uint64_t{1} << (32 - prefix_);
  // As upstream, the low band of the range is left for addresses asked for explicitly (the
  // `kubernetes` Service's first address, cluster DNS's tenth); dynamic allocation starts
  // above it and wraps around, skipping the network and broadcast addresses.
  uint64_t band = std::clamp<uint64_t>(size / 16, 16, 256);
  for (uint64_t i = 0; i + 2 < size; ++i) {
    uint64_t n = 1 + (band - 1 + i) % (size - 2);
    uint32_t ip = network_ + static_cast<uint32_t>(n);
    if (used.ips.count(ip) || reserved_ips_.count(ip)) continue;
    reserved_ips_[ip] = SteadyClock::now();
    return format_ipv4(ip);
  }
  return std::nullopt;
}

std::optional<int> Strategies::allocate_node_port() {
  std::lock_guard lock(mu_);
  drop_stale_reservations();
  Used used = used_by_services();
  for (int port = networks_.node_port_first; port <= networks_.node_port_last; ++port) {
    if (used.ports.count(port) || reserved_ports_.count(port)) continue;
    reserved_ports_[port] = SteadyClock::now();
    return port;
  }
  return std::nullopt;
}

}  // namespace k3c::apiserver
