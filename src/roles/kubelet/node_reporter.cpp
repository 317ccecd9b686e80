// The kubelet's Node registration, status writes and Lease renewal (see node_reporter.h).
#include "roles/kubelet/node_reporter.h"

#include "api/json_fields.h"
#include "core/ids.h"
#include "core/log.h"

namespace k3c::kubelet {
namespace {

using nlohmann::json;
namespace res = client::resources;

// Upstream's nodeStatusUpdateRetry.
constexpr int kStatusWriteTries = 5;

const json& conditions_of(const json& status) {
  static const json none = json::array();
  const json& c = api::member(status, "conditions");
  return c.is_array() ? c : none;
}

std::string condition_status(const json& status, const std::string& type) {
  for (const json& c : conditions_of(status)) {
    if (api::text(c, "type") == type) return api::text(c, "status");
  }
  return "";
}

}  // namespace

std::vector<std::string> condition_events(const json& previous, const json& next) {
  struct Pressure {
    const char* type;
    const char* when_true;
    const char* when_false;
  };
  static constexpr Pressure kPressures[] = {
      {"MemoryPressure", "NodeHasInsufficientMemory", "NodeHasSufficientMemory"},
      {"DiskPressure", "NodeHasDiskPressure", "NodeHasNoDiskPressure"},
      {"PIDPressure", "NodeHasInsufficientPID", "NodeHasSufficientPID"}};
  std::vector<std::string> events;
  for (const Pressure& p : kPressures) {
    const std::string now = condition_status(next, p.type);
    if (now.empty() || now == condition_status(previous, p.type)) continue;
    if (now == "True") events.emplace_back(p.when_true);
    if (now == "False") events.emplace_back(p.when_false);
  }
  // Ready is recorded only when it flips, not when it first appears (as upstream).
  const std::string was = condition_status(previous, "Ready");
  const std::string now = condition_status(next, "Ready");
  if (!was.empty() && !now.empty() && was != now) {
    events.emplace_back(now == "True" ? "NodeReady" : "NodeNotReady");
  }
  return events;
}

NodeReporter::NodeReporter(client::Client& client, NodeIdentity identity, const MachineProbe& probe,
                           runtime::ImageService* images, client::EventRecorder* events,
                           const KubeletSettings& settings, const Clock& clock)
    : client_(client),
      identity_(std::move(identity)),
      probe_(probe),
      images_(images),
      events_(events),
      settings_(settings),
      clock_(clock) {}

std::vector<runtime::ImageSummary> NodeReporter::list_images() const {
  if (images_ == nullptr) return {};
  auto listed = images_->list_images();
  if (!listed.is_ok()) {
    log::for_role("kubelet")->warn("node status: listing images: {}", listed.status().message());
    return {};
  }
  return std::move(*listed);
}

void NodeReporter::record_event(const std::string& reason, const std::string& message,
                                const std::string& type) {
  if (events_ == nullptr) return;
  // Upstream refers to its node by name in place of the uid; `kubectl describe node` looks
  // the events up that way.
  json node_ref = {{"apiVersion", "v1"},
                   {"kind", "Node"},
                   {"metadata", {{"name", identity_.name}, {"uid", identity_.name}}}};
  events_->record(node_ref, type, reason, message);
}

void NodeReporter::record_transitions(const json& previous, const json& next) {
  for (const std::string& reason : condition_events(previous, next)) {
    record_event(reason, "Node " + identity_.name + " status is now: " + reason);
  }
}

Status NodeReporter::register_node() {
  auto logger = log::for_role("kubelet");
  const MachineInfo machine = probe_.probe();
  auto existing = client::get(client_, res::kNodes, "", identity_.name);
  if (!existing.is_ok() && existing.status().code() != Code::kNotFound) return existing.status();
  if (!existing.is_ok()) {
    const std::string now = rfc3339(clock_.wall_now());
    json node = registration_node(identity_, machine, list_images(), now);
    auto created = client::create(client_, res::kNodes, "", node);
    if (created.is_ok()) {
      node_uid_ = api::text(api::member(*created, "metadata"), "uid");
      last_report_ = clock_.now();
      record_transitions(json::object(), node["status"]);
      logger->info("registered node {}", identity_.name);
      return Status::ok();
    }
    if (created.status().code() != Code::kAlreadyExists) return created.status();
    existing = client::get(client_, res::kNodes, "", identity_.name);  // lost a race: reconcile
    if (!existing.is_ok()) return existing.status();
  }
  node_uid_ = api::text(api::member(*existing, "metadata"), "uid");
  if (auto patch = label_patch(*existing, node_labels(identity_, machine))) {
    RETURN_IF_ERROR(client::patch_unanswered(client_, res::kNodes, "", identity_.name,
                                             "application/merge-patch+json", *patch));
  }
  // The status of a node that was already there is written at the next sync, at once.
  last_report_.reset();
  logger->info("node {} was already registered; labels reconciled", identity_.name);
  return Status::ok();
}

Status NodeReporter::sync_status() {
  for (int attempt = 0; attempt < kStatusWriteTries; ++attempt) {
    auto node = client::get(client_, res::kNodes, "", identity_.name);
    if (!node.is_ok()) return node.status();
    const json previous = api::member(*node, "status");
    json next = node_status(identity_, probe_.probe(), list_images(), previous,
                            rfc3339(clock_.wall_now()), pressure_ ? pressure_() : NodePressure{});
    if (!status_write_due(previous, next, last_report_, clock_.now(),
                          settings_.node_status_report_frequency)) {
      return Status::ok();
    }
    (*node)["status"] = next;
    auto written = client::update(client_, res::kNodes, *node, "status");
    if (written.is_ok()) {
      node_uid_ = api::text(api::member(*written, "metadata"), "uid");
      last_report_ = clock_.now();
      record_transitions(previous, next);
      return Status::ok();
    }
    if (written.status().code() != Code::kConflict) return written.status();
  }
  return error(Code::kConflict, "node " + identity_.name + " status: still conflicting after " +
                                    std::to_string(kStatusWriteTries) + " tries");
}

Status NodeReporter::renew_lease() {
  const std::string now = rfc3339_micro(clock_.wall_now());
  // The Lease as last written is renewed with one update; a conflict (or a deleted Lease)
  // reads it afresh and tries once more.
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!lease_.is_object()) {
      auto current = client::get(client_, res::kLeases, "kube-node-lease", identity_.name);
      if (!current.is_ok() && current.status().code() != Code::kNotFound) {
        return current.status();
      }
      if (!current.is_ok()) {
        auto created = client::create(
            client_, res::kLeases, "kube-node-lease",
            node_lease(identity_.name, node_uid_, settings_.node_lease_duration_seconds, now));
        if (!created.is_ok()) return created.status();
        lease_ = std::move(*created);
        return Status::ok();
      }
      lease_ = std::move(*current);
    }
    json lease = lease_;
    json wanted = node_lease(identity_.name, node_uid_, settings_.node_lease_duration_seconds, now);
    lease["spec"]["holderIdentity"] = identity_.name;
    lease["spec"]["leaseDurationSeconds"] = settings_.node_lease_duration_seconds;
    lease["spec"]["renewTime"] = now;
    // The owner is this node's current incarnation (a node deleted and registered again has
    // a new uid; the old reference would let the garbage collector take the Lease).
    if (wanted["metadata"].contains("ownerReferences")) {
      lease["metadata"]["ownerReferences"] = wanted["metadata"]["ownerReferences"];
    }
    auto updated = client::update(client_, res::kLeases, lease);
    if (updated.is_ok()) {
      lease_ = std::move(*updated);
      return Status::ok();
    }
    lease_ = json();
    if (updated.status().code() != Code::kConflict && updated.status().code() != Code::kNotFound) {
      return updated.status();
    }
  }
  return error(Code::kConflict, "lease kube-node-lease/" + identity_.name + ": still conflicting");
}

}  // namespace k3c::kubelet
