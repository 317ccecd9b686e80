// The apiserver role: serves the Kubernetes API over HTTPS on top of the store. On start it
// makes (or reuses) the cluster PKI and join token, loads the watch cache, creates the
// built-in namespaces, starts the HTTPS server and writes the admin kubeconfig.
//
// Threads: start() and stop() from the RoleRunner; ready() from any thread. The HTTPS server
// calls into the router from its worker pool.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/lifecycle.h"
#include "http/http.h"
#include "http/local_endpoints.h"
#include "roles/apiserver/component_probes.h"
#include "roles/apiserver/health.h"
#include "roles/apiserver/server_metrics.h"
#include "store/store.h"

namespace k3c::http {
class HttpsServer;
}

namespace k3c::api {
class ResourceRegistry;
}

namespace k3c::apiserver {

class WatchCache;
class Rest;
class Actions;
class ServiceAccountTokens;
class TokenAuthenticator;
class Router;
class Strategies;
class ServedApi;
class CrdController;
class Supervisor;

struct ApiServerConfig {
  std::string tls_dir;     // <data-dir>/server/tls
  std::string token_path;  // <data-dir>/server/token
  std::string bind_address = "0.0.0.0";
  uint16_t port = 6443;
  std::string advertise_address;  // what discovery tells clients; "" = the bind address
  std::vector<std::string> tls_sans;
  std::string cluster_domain = "cluster.local";
  std::string first_service_ip = "10.43.0.1";  // the `kubernetes` Service
  std::string service_cidr = "10.43.0.0/16";
  uint16_t node_port_first = 30000;
  uint16_t node_port_last = 32767;
  std::string kubeconfig_path;  // "" = write none
  unsigned kubeconfig_mode = 0600;
  // The kubelets reachable in-process (the one of this node, when the agent runs); pods/log
  // and the other kubelet subresources go to them. Null = none.
  std::shared_ptr<http::LocalEndpoints> kubelets;
  // What `kubectl get componentstatuses` reports besides the datastore (etcd-0), which the
  // apiserver adds; null: only that.
  std::shared_ptr<ComponentProbes> components;
};

class ApiServerRole final : public Role {
 public:
  // `store` returns the open store once the store role is up.
  ApiServerRole(ApiServerConfig config, std::function<store::Store*()> store,
                const Clock& clock = SystemClock::instance());
  ~ApiServerRole() override;

  std::string_view name() const override { return "apiserver"; }
  Status start() override;
  void stop() override;
  bool ready() const override { return ready_; }
  // The bound port (useful with port 0 in tests).
  uint16_t port() const;
  // The handler chain for in-process clients (client/in_process_client.h); valid once
  // ready() and until stop().
  http::Response handle(http::Request& request);
  // The cluster CA certificate (PEM) clients verify the API server with.
  const std::string& server_ca_pem() const { return server_ca_pem_; }

 private:
  Status bootstrap_objects();
  // /healthz, /livez, /readyz: the store answers, the CRD controller runs, not stopping.
  void add_health_checks(store::Store& store);

  const ApiServerConfig config_;
  std::function<store::Store*()> store_;
  const Clock& clock_;
  std::shared_ptr<const api::ResourceRegistry> registry_;
  std::unique_ptr<WatchCache> cache_;
  std::unique_ptr<Strategies> strategies_;
  std::unique_ptr<Rest> rest_;
  std::unique_ptr<ServiceAccountTokens> tokens_;
  std::unique_ptr<TokenAuthenticator> authn_;
  std::unique_ptr<Actions> actions_;
  std::unique_ptr<ServedApi> served_;
  std::unique_ptr<CrdController> crds_;
  HealthChecks health_;
  std::unique_ptr<ServerMetrics> metrics_;
  std::atomic<bool> stopping_{false};
  std::unique_ptr<Router> router_;
  std::unique_ptr<Supervisor> supervisor_;  // the join endpoints (supervisor.h)
  std::unique_ptr<http::HttpsServer> server_;
  std::string server_ca_pem_;
  std::atomic<bool> ready_{false};
};

}  // namespace k3c::apiserver
