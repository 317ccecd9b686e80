// The apiserver role (see api_server.h).
#include "roles/apiserver/api_server.h"

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <future>

#include "api/discovery.h"
#include "core/ids.h"
#include "core/log.h"
#include "core/version.h"
#include "http/http_connection.h"
#include "http/https_server.h"
#include "pki/pki.h"
#include "roles/apiserver/actions.h"
#include "roles/apiserver/crd_controller.h"
#include "roles/apiserver/object_codec.h"
#include "roles/apiserver/pod_admission.h"
#include "roles/apiserver/rest.h"
#include "roles/apiserver/router.h"
#include "roles/apiserver/service_account_tokens.h"
#include "roles/apiserver/supervisor.h"
#include "roles/apiserver/token_authenticator.h"
#include "roles/apiserver/watch_cache.h"

namespace k3c::apiserver {
namespace {

using nlohmann::json;

// The datastore answers a read, as upstream's health check reads etcd (a missing key is an
// answer too).
Status datastore_health(store::Store& store) {
  auto r = store.get("/registry/health");
  if (r.is_ok() || r.status().code() == Code::kNotFound) return Status::ok();
  return r.status();
}

api::VersionInfo version_info() {
  api::VersionInfo v;
  v.git_version = version::kKubernetesGitVersion;
  v.git_commit = version::kGitCommit;
  v.build_date = version::kBuildDate;
  v.compiler = "gcc " __VERSION__;
  return v;
}

std::optional<http::PeerIdentity> identify(SSL* ssl) {
  auto id = pki::peer_identity(ssl);
  if (!id.is_ok() || !*id) return std::nullopt;
  return http::PeerIdentity{(*id)->user, (*id)->groups, "", {}};
}

// What the apiserver reaches kubelets in other processes with: the server CA to verify their
// serving certificates, and a client certificate of its own (issued at each start, as the
// kubelet client pair upstream's apiserver is given).
Result<std::shared_ptr<const http::ClientTlsContext>> kubelet_client_tls(
    const pki::ServerPki& pki) {
  ASSIGN_OR_RETURN(
      pki::CertKey client,
      pki::issue_client_cert(pki.client_ca, {"kube-apiserver-kubelet-client", {"system:masters"}}));
  http::ClientTls tls;
  tls.ca_pem = pki.server_ca.cert_pem;
  tls.cert_pem = client.cert_pem;
  tls.key_pem = client.key_pem;
  return http::ClientTlsContext::make(tls);
}

}  // namespace

ApiServerRole::ApiServerRole(ApiServerConfig config, std::function<store::Store*()> store,
                             const Clock& clock)
    : config_(std::move(config)), store_(std::move(store)), clock_(clock) {}

ApiServerRole::~ApiServerRole() { stop(); }

uint16_t ApiServerRole::port() const { return server_ ? server_->port() : 0; }

http::Response ApiServerRole::handle(http::Request& request) { return router_->handle(request); }

Status ApiServerRole::start() {
  auto log = log::for_role("apiserver");
  store::Store* store = store_();
  if (!store) return error(Code::kServiceUnavailable, "the store is not open");

  pki::PkiOptions pki_options;
  pki_options.tls_dir = config_.tls_dir;
  pki_options.sans = config_.tls_sans;
  pki_options.cluster_domain = config_.cluster_domain;
  pki_options.first_service_ip = config_.first_service_ip;
  pki_options.clock = &clock_;
  ASSIGN_OR_RETURN(pki::ServerPki pki, pki::ensure_server_pki(pki_options));
  for (const auto& action : pki.actions) log->info("tls: {}", action);
  server_ca_pem_ = pki.server_ca.cert_pem;
  ASSIGN_OR_RETURN(std::string token,
                   pki::ensure_server_token(config_.token_path, pki.server_ca.cert_pem));
  ASSIGN_OR_RETURN(pki::ParsedToken parsed_token, pki::parse_token(token));
  // Agents join with the token (supervisor.h); the node passwords sit beside it, as k3s's.
  supervisor_ = std::make_unique<Supervisor>(
      pki.server_ca, pki.client_ca, std::move(parsed_token),
      std::filesystem::path(config_.token_path).parent_path().string() + "/cred/node-passwd");
  ASSIGN_OR_RETURN(pki::SslContextPtr tls, pki::make_server_context(pki));
  // The service-account keys are made (first start: a new RSA key) or read while the rest
  // starts; token requests wait for them.
  std::shared_future<Result<TokenKeys>> sa_keys =
      std::async(std::launch::async, [tls_dir = config_.tls_dir, log] {
        auto make = [&]() -> Result<TokenKeys> {
          ASSIGN_OR_RETURN(pki::ServiceAccountKeys keys, pki::ensure_service_account_keys(tls_dir));
          ASSIGN_OR_RETURN(pki::JwtSigner signer, pki::JwtSigner::from_pem(keys.signing_key_pem));
          ASSIGN_OR_RETURN(pki::JwtVerifier verifier,
                           pki::JwtVerifier::from_pems(keys.verify_key_pems));
          return TokenKeys{std::move(signer), std::move(verifier)};
        };
        Result<TokenKeys> keys = make();
        if (!keys.is_ok()) {
          log->error("service-account keys: {}; token requests fail until this is fixed",
                     keys.status().message());
        }
        return keys;
      }).share();
  // k3s's issuer and --api-audiences: the in-cluster API URL and the program's name.
  std::string issuer = "https://kubernetes.default.svc." + config_.cluster_domain;
  tokens_ = std::make_unique<ServiceAccountTokens>(sa_keys, issuer,
                                                   std::vector<std::string>{issuer, "k3c"}, clock_);

  ASSIGN_OR_RETURN(api::ResourceRegistry builtin, api::ResourceRegistry::builtin());
  auto registry = std::make_shared<const api::ResourceRegistry>(std::move(builtin));
  registry_ = registry;
  ASSIGN_OR_RETURN(api::SchemaSet builtin_schemas, api::SchemaSet::builtin());
  auto schemas = std::make_shared<const api::SchemaSet>(std::move(builtin_schemas));
  std::string address =
      config_.advertise_address.empty() ? config_.bind_address : config_.advertise_address;
  if (address == "0.0.0.0" || address == "::") address = "127.0.0.1";

  WatchCacheOptions cache_options;
  for (const api::Resource& r : registry->resources()) {
    if (r.watch_cached || !r.stored()) continue;
    std::string prefix = r.storage_prefix + "/";
    auto& uncached = cache_options.uncached_prefixes;
    if (std::find(uncached.begin(), uncached.end(), prefix) == uncached.end())
      uncached.push_back(std::move(prefix));
  }
  cache_ = std::make_unique<WatchCache>(*store, decode_stored, std::move(cache_options));
  RETURN_IF_ERROR(cache_->start());
  strategies_ = std::make_unique<Strategies>(
      *cache_,
      ClusterNetworks{config_.service_cidr, config_.node_port_first, config_.node_port_last});
  rest_ = std::make_unique<Rest>(*store, *cache_, *strategies_, clock_, schemas, registry);
  authn_ = std::make_unique<TokenAuthenticator>(*tokens_, *cache_);
  ASSIGN_OR_RETURN(auto kubelet_tls, kubelet_client_tls(pki));
  auto components = config_.components ? config_.components : std::make_shared<ComponentProbes>();
  components->add("etcd-0", [store] { return datastore_health(*store); });
  actions_ = std::make_unique<Actions>(*rest_, *cache_, *store, clock_, schemas, registry, *authn_,
                                       config_.kubelets, std::move(kubelet_tls), components);
  ASSIGN_OR_RETURN(
      served_,
      ServedApi::create(*registry, {address + ":" + std::to_string(config_.port), version_info()},
                        schemas));
  RETURN_IF_ERROR(bootstrap_objects());
  crds_ = std::make_unique<CrdController>(*store, *cache_, *served_, *rest_, clock_);
  RETURN_IF_ERROR(crds_->start());
  add_health_checks(*store);
  metrics_ =
      std::make_unique<ServerMetrics>(std::make_shared<RequestMetrics>(), *store, version_info());
  router_ = std::make_unique<Router>(*served_, *rest_, *actions_, *authn_, health_, *metrics_);

  http::ServerOptions options;
  options.bind_address = config_.bind_address;
  options.port = config_.port;
  options.identify_peer = identify;
  options.fast_handler = [this](http::Request& r) -> std::optional<http::Response> {
    if (Supervisor::handles(r.path)) return std::nullopt;  // issuing a key may take a while
    return router_->handle_fast(r);
  };
  server_ = std::make_unique<http::HttpsServer>(options, tls.release(), [this](http::Request& r) {
    if (Supervisor::handles(r.path)) return supervisor_->serve(r);
    return router_->handle(r);
  });
  RETURN_IF_ERROR(server_->start());
  if (!config_.kubeconfig_path.empty()) {
    RETURN_IF_ERROR(pki::write_kubeconfig(config_.kubeconfig_path, config_.kubeconfig_mode,
                                          "https://127.0.0.1:" + std::to_string(server_->port()),
                                          pki.server_ca.cert_pem, pki.admin.cert_pem,
                                          pki.admin.key_pem));
    log->info("wrote kubeconfig {}", config_.kubeconfig_path);
  }
  log->info("serving the Kubernetes API on https://{}:{}", config_.bind_address, server_->port());
  // Start-up parsed the schema and rule files and built the caches: hand the heap those
  // temporaries used back to the system instead of keeping it as idle resident memory.
  malloc_trim(0);
  ready_ = true;
  return Status::ok();
}

void ApiServerRole::add_health_checks(store::Store& store) {
  health_.add("ping", [] { return Status::ok(); });
  health_.add("log", [] { return Status::ok(); });
  // A read of the datastore, as upstream reads etcd: a missing key is an answer.
  health_.add("etcd", [&store] { return datastore_health(store); });
  health_.add("poststarthook/start-apiextensions-controllers", [this] {
    return crds_ ? Status::ok() : error(Code::kServiceUnavailable, "not finished");
  });
  health_.add(
      "informer-sync",
      [this] {
        return cache_ ? Status::ok()
                      : error(Code::kServiceUnavailable, "the watch cache is not loaded");
      },
      /*readyz_only=*/true);
  health_.add(
      "shutdown",
      [this] {
        return stopping_ ? error(Code::kServiceUnavailable, "process is shutting down")
                         : Status::ok();
      },
      /*readyz_only=*/true);
}

Status ApiServerRole::bootstrap_objects() {
  const api::Resource* ns = registry_->find("", "v1", "namespaces");
  for (const char* name : kBuiltinNamespaces) {
    RETURN_IF_ERROR(rest_->ensure(
        *ns, "", {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}}));
  }
  // The built-in PriorityClasses, as upstream's apiserver creates them.
  const api::Resource* classes = registry_->find("scheduling.k8s.io", "v1", "priorityclasses");
  for (json& pc : system_priority_classes()) RETURN_IF_ERROR(rest_->ensure(*classes, "", pc));
  // The `kubernetes` Service: the API at the first address of the service range.
  json service = {{"apiVersion", "v1"},
                  {"kind", "Service"},
                  {"metadata",
                   {{"name", "kubernetes"},
                    {"labels", {{"component", "apiserver"}, {"provider", "kubernetes"}}}}},
                  {"spec",
                   {{"type", "ClusterIP"},
                    {"clusterIP", config_.first_service_ip},
                    {"ports",
                     {{{"name", "https"},
                       {"port", 443},
                       {"protocol", "TCP"},
                       {"targetPort", config_.port}}}}}}};
  return rest_->ensure(*registry_->find("", "v1", "services"), "default", std::move(service));
}

void ApiServerRole::stop() {
  stopping_ = true;
  ready_ = false;
  if (server_) server_->stop();
  if (crds_) crds_->stop();
  if (cache_) cache_->stop();
}

}  // namespace k3c::apiserver
