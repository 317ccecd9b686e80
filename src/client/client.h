// The API client every role uses: one interface, two transports (DESIGN.md). In the server
// process the in-process transport calls the apiserver's handler chain directly (no HTTP, no
// TLS, same authentication, authorization, admission and validation); remote roles use
// HTTPS. Role code sees only Client and the typed calls below.
//
// Thread-safety: a Client is used from any number of threads at once.
#pragma once

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"

namespace k3c::client {

// A raw answer: HTTP status and body.
struct Reply {
  int status = 0;
  std::string body;
};

// The lines of a watch (one JSON event per line) as they arrive.
class WatchLines {
 public:
  virtual ~WatchLines() = default;
  // The next event line; nullopt when `wait` ran out (ended() tells whether the stream is over).
  virtual std::optional<std::string> next(std::chrono::milliseconds wait) = 0;
  virtual bool ended() const = 0;
  // Ends the watch (from any thread); next() then returns promptly.
  virtual void cancel() = 0;
};

class Client {
 public:
  virtual ~Client() = default;
  // One request. `target` is path and query, already escaped. Transport failures are errors;
  // any HTTP answer, also 4xx/5xx, is a Reply.
  virtual Result<Reply> request(std::string_view method, std::string_view target,
                                std::string_view body = {},
                                std::string_view content_type = "application/json") = 0;
  // A watch request (target carries watch=true); a non-2xx answer is an error Status.
  virtual Result<std::unique_ptr<WatchLines>> watch(std::string_view target) = 0;
};

// Which resource a call is about, as the URL names it.
struct ResourceId {
  std::string group;  // "" for core
  std::string version;
  std::string plural;
  bool namespaced = true;

  // /api/v1/namespaces/<ns>/pods[/<name>[/<subresource>]]; ns "" lists every namespace.
  std::string path(std::string_view ns = {}, std::string_view name = {},
                   std::string_view subresource = {}) const;
  std::string api_version() const { return group.empty() ? version : group + "/" + version; }
};

// The built-in resources controllers use.
namespace resources {
extern const ResourceId kNamespaces, kPods, kServices, kEndpoints, kNodes, kConfigMaps, kSecrets,
    kServiceAccounts, kEvents, kReplicationControllers, kPersistentVolumeClaims, kPersistentVolumes,
    kDeployments, kReplicaSets, kStatefulSets, kDaemonSets, kControllerRevisions, kJobs, kCronJobs,
    kLeases, kEndpointSlices, kPodDisruptionBudgets, kResourceQuotas,
    kHorizontalPodAutoscalers, kStorageClasses;
}  // namespace resources

// A non-2xx reply as a Status: the code from the Status body's reason (or the HTTP code),
// the message as the server wrote it.
Status status_of(const Reply& reply);

// Typed calls over any Client. Objects are JSON; errors keep the server's code and message
// (NotFound, AlreadyExists, Conflict, ...).
struct ListOptions {
  std::string label_selector;
  std::string field_selector;
  int64_t limit = 0;
  std::string continue_token;
  std::string resource_version;
};
struct DeleteOptions {
  std::string propagation_policy;  // "", Background, Foreground, Orphan
  std::string precondition_uid;
  std::optional<int64_t> grace_period_seconds;
};

Result<nlohmann::json> get(Client& c, const ResourceId& r, std::string_view ns,
                           std::string_view name);
Result<nlohmann::json> list(Client& c, const ResourceId& r, std::string_view ns,
                            const ListOptions& options = {});
Result<nlohmann::json> create(Client& c, const ResourceId& r, std::string_view ns,
                              const nlohmann::json& object);
// PUT of the object (or its subresource); metadata.resourceVersion is the precondition.
Result<nlohmann::json> update(Client& c, const ResourceId& r, const nlohmann::json& object,
                              std::string_view subresource = {});
Result<nlohmann::json> patch(Client& c, const ResourceId& r, std::string_view ns,
                             std::string_view name, std::string_view patch_type,
                             const nlohmann::json& patch_body, std::string_view subresource = {});
// The same patch for a caller that needs only whether it was applied: the object the server
// answers with is not parsed (a kubelet's status writes, thousands a second on a big cluster).
Status patch_unanswered(Client& c, const ResourceId& r, std::string_view ns,
                        std::string_view name, std::string_view patch_type,
                        const nlohmann::json& patch_body, std::string_view subresource = {});
Status remove(Client& c, const ResourceId& r, std::string_view ns, std::string_view name,
              const DeleteOptions& options = {});

// Query escaping for selectors and names in targets.
std::string query_escape(std::string_view text);

}  // namespace k3c::client
