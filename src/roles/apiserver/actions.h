// The API calls that are not plain CRUD on a stored object: the create-only review kinds
// (TokenReview, SelfSubjectReview, the access reviews) and the subresources that act on
// their parent (scale, pods/binding and /bindings, pods/eviction, serviceaccounts/token),
// plus pods/log, pods/exec, pods/attach, pods/portforward and nodes/proxy (passed on to the
// kubelet of the pod's node, or the node's) and a clear 501 for pods/proxy and services/proxy
// until they are built. Each lives in its own file; this class dispatches.
//
// Writes go through Rest (a synthetic update or delete on the parent), so metadata rules,
// strategies and optimistic concurrency stay in one place. Binding writes the pod directly,
// as upstream's does: spec.nodeName is otherwise immutable.
//
// Thread-safety: serve() from any thread; the class holds no mutable state.
#pragma once

#include <memory>
#include <optional>

#include "api/registry.h"
#include "api/schema.h"
#include "core/clock.h"
#include "http/http.h"
#include "http/http_connection.h"
#include "http/local_endpoints.h"
#include "roles/apiserver/component_probes.h"
#include "roles/apiserver/rest.h"
#include "roles/apiserver/token_authenticator.h"
#include "roles/apiserver/watch_cache.h"
#include "store/store.h"

namespace k3c::apiserver {

class Actions {
 public:
  Actions(Rest& rest, WatchCache& cache, store::Store& store, const Clock& clock,
          std::shared_ptr<const api::SchemaSet> schemas,
          std::shared_ptr<const api::ResourceRegistry> registry,
          const TokenAuthenticator& authenticator,
          std::shared_ptr<http::LocalEndpoints> kubelets = nullptr,
          std::shared_ptr<const http::ClientTlsContext> kubelet_tls = nullptr,
          std::shared_ptr<const ComponentProbes> components = nullptr)
      : rest_(rest),
        cache_(cache),
        store_(store),
        clock_(clock),
        schemas_(std::move(schemas)),
        registry_(std::move(registry)),
        authn_(authenticator),
        kubelets_(std::move(kubelets)),
        kubelet_tls_(std::move(kubelet_tls)),
        components_(std::move(components)) {}

  // The answer when `call` is one of the above; nullopt hands it back to the router.
  std::optional<http::Response> serve(const Call& call);

 private:
  http::Response scale(const Call& call);
  http::Response update_scale(const Call& call);
  http::Response bind(const Call& call, const std::string& name);
  http::Response evict(const Call& call);
  http::Response pod_log(const Call& call);
  http::Response pod_stream(const Call& call);  // exec, attach, portforward
  http::Response node_proxy(const Call& call);  // node_proxy.h
  http::Response token_request(const Call& call);
  http::Response self_subject_review(const Call& call);
  http::Response token_review(const Call& call);
  http::Response access_review(const Call& call);
  http::Response rules_review(const Call& call);
  http::Response component_statuses(const Call& call);  // component_probes.h

  // The pod a pods/<sub> call names (404 as upstream when it is missing).
  ApiResult<nlohmann::json> read_pod(const Call& call);
  // The kubelet of `node`: in-process when it runs here, else over HTTPS at the address and
  // port its Node reports (remote_kubelet.h); 503 when neither is known.
  ApiResult<http::Handler> kubelet_of(const std::string& node);

  BodyCodecs codecs() const { return {*schemas_, *registry_}; }
  // The request body as a JSON object of `kind` (apiVersion/kind checked when given).
  ApiResult<nlohmann::json> body_of(const Call& call, std::string_view api_version,
                                    std::string_view kind);

  Rest& rest_;
  WatchCache& cache_;
  store::Store& store_;
  const Clock& clock_;
  std::shared_ptr<const api::SchemaSet> schemas_;
  std::shared_ptr<const api::ResourceRegistry> registry_;
  const TokenAuthenticator& authn_;
  // The kubelets this process can reach in-process, by node name; null when none.
  std::shared_ptr<http::LocalEndpoints> kubelets_;
  // Trusts the server CA, presents the apiserver's kubelet client certificate; null: no
  // kubelet in another process is reached.
  std::shared_ptr<const http::ClientTlsContext> kubelet_tls_;
  std::shared_ptr<const ComponentProbes> components_;  // componentstatuses
};

// Helpers the action files share.
namespace actions {
// A copy of `request` as another verb on the parent: method, body (JSON) and the dryRun
// parameters of the original.
http::Request synthetic(const http::Request& request, std::string method, std::string body);
bool dry_run(const http::Request& request);
// The Success Status a create answers with (code 201, as upstream's create handler sets).
http::Response created_success();
// A stored object with its revision, or the NotFound/other error as an ApiError.
struct Stored {
  nlohmann::json object;
  int64_t revision = 0;
};
ApiResult<Stored> read(WatchCache& cache, const std::string& key);
// A pod's stored bytes once bound to `node` at `now` (spec.nodeName, PodScheduled=True),
// edited from its cached text (pod_binding.cpp): only spec and status are parsed and written
// again. The bytes a parse of the whole pod and a dump would give, without resourceVersion.
// nullopt when the text is not as our encoder writes it, or the pod is being deleted, bound
// already or without a spec or status object (the binding then goes through the parsed pod).
std::optional<std::string> bound_pod_text(std::string_view cached, const std::string& node,
                                          const std::string& now);
// The port a Node reports for its kubelet (status.daemonEndpoints.kubeletEndpoint.Port);
// nullopt when it reports none or one out of range.
std::optional<uint16_t> kubelet_port(const nlohmann::json& node);
}  // namespace actions

// The kubelet's port when a Node reports none (upstream's --kubelet-port default).
inline constexpr uint16_t kDefaultKubeletPort = 10250;

}  // namespace k3c::apiserver
