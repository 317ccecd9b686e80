// Per-resource rules the REST layer applies after the schema-driven defaults and validation
// (admission.h): Service ClusterIP and NodePort allocation, IP families and the immutable
// clusterIP, the TTL of Events, the `default` ServiceAccount of pods: the rules that need
// cluster state. Also a pod's status.qosClass, set once on create, and the rules of
// CertificateSigningRequests (csr_strategy.h).
//
// Thread-safety: every method from any thread; mu_ guards the reservations.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>

#include "api/registry.h"
#include "http/http.h"
#include "roles/apiserver/api_errors.h"
#include "roles/apiserver/watch_cache.h"

namespace k3c::apiserver {

struct ClusterNetworks {
  std::string service_cidr = "10.43.0.0/16";  // IPv4 only for now
  uint16_t node_port_first = 30000;
  uint16_t node_port_last = 32767;
};

// Who writes, how and when: what some kinds' rules need (a CertificateSigningRequest records
// its requester, and each of its subresources changes its own part).
struct WriteContext {
  std::string_view subresource;              // "" for the object itself
  const http::PeerIdentity* user = nullptr;  // null for the server's own writes
  std::chrono::system_clock::time_point now;
};

class Strategies {
 public:
  Strategies(WatchCache& cache, ClusterNetworks networks);

  std::optional<ApiError> before_create(const api::Resource& r, nlohmann::json& object,
                                        const WriteContext& write);
  std::optional<ApiError> before_update(const api::Resource& r, nlohmann::json& object,
                                        const nlohmann::json& old, const WriteContext& write);
  // The store lease (TTL seconds) objects of the resource are written with; 0 = none.
  int64_t lease_seconds(const api::Resource& r) const;

 private:
  std::optional<ApiError> prepare_service(nlohmann::json& service, const nlohmann::json* old);
  struct Used {
    std::set<uint32_t> ips;
    std::set<int> ports;
  };
  std::optional<std::string> allocate_ip();
  std::optional<int> allocate_node_port();
  void drop_stale_reservations();
  Used used_by_services() const;

  WatchCache& cache_;
  uint32_t network_ = 0;  // the service range, host order
  int prefix_ = 16;
  ClusterNetworks networks_;
  std::mutex mu_;
  // Addresses and ports handed out but perhaps not yet visible in the cache, with when.
  std::map<uint32_t, std::chrono::steady_clock::time_point> reserved_ips_;
  std::map<int, std::chrono::steady_clock::time_point> reserved_ports_;
};

}  // namespace k3c::apiserver
