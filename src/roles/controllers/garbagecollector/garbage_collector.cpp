#include "roles/controllers/garbagecollector/garbage_collector.h"

#include "api/json_fields.h"
#include "roles/controllers/common/metadata_writes.h"
#include "roles/controllers/common/objects.h"

namespace k3c::controllers {

namespace {

constexpr const char* kOwnerIndex = "owner-uid";
const client::ResourceId kCustomResourceDefinitions{"apiextensions.k8s.io", "v1",
                                                    "customresourcedefinitions", false};

std::string queue_key(size_t kind, const json& object) {
  return std::to_string(kind) + "|" + client::key_of(object);
}

std::pair<size_t, std::string> parse_key(const std::string& key) {
  size_t bar = key.find('|');
  return {static_cast<size_t>(std::stoul(key.substr(0, bar))), key.substr(bar + 1)};
}

// The kinds' API group ("" for core) from an ownerReference's apiVersion.
std::string group_of(const std::string& api_version) {
  size_t slash = api_version.find('/');
  return slash == std::string::npos ? "" : api_version.substr(0, slash);
}

}  // namespace

const std::vector<GarbageCollector::Kind>& GarbageCollector::kinds() {
  using namespace client::resources;
  static const std::vector<Kind> kKinds = {
      {kPods, "v1", "Pod"},
      {kReplicaSets, "apps/v1", "ReplicaSet"},
      {kDeployments, "apps/v1", "Deployment"},
      {kStatefulSets, "apps/v1", "StatefulSet"},
      {kDaemonSets, "apps/v1", "DaemonSet"},
      {kControllerRevisions, "apps/v1", "ControllerRevision"},
      {kJobs, "batch/v1", "Job"},
      {kCronJobs, "batch/v1", "CronJob"},
      {kReplicationControllers, "v1", "ReplicationController"},
      {kConfigMaps, "v1", "ConfigMap"},
      {kSecrets, "v1", "Secret"},
      {kServices, "v1", "Service"},
      {kEndpointSlices, "discovery.k8s.io/v1", "EndpointSlice"},
      {kPersistentVolumeClaims, "v1", "PersistentVolumeClaim"},
      {kServiceAccounts, "v1", "ServiceAccount"},
      {kNodes, "v1", "Node"},
      {kEndpoints, "v1", "Endpoints"},
      {kPersistentVolumes, "v1", "PersistentVolume"},
      {kResourceQuotas, "v1", "ResourceQuota"},
      {{"", "v1", "limitranges"}, "v1", "LimitRange"},
      {{"", "v1", "podtemplates"}, "v1", "PodTemplate"},
      {kLeases, "coordination.k8s.io/v1", "Lease"},
      {kPodDisruptionBudgets, "policy/v1", "PodDisruptionBudget"},
      {kHorizontalPodAutoscalers, "autoscaling/v2", "HorizontalPodAutoscaler"},
      {{"networking.k8s.io", "v1", "ingresses"}, "networking.k8s.io/v1", "Ingress"},
      {{"networking.k8s.io", "v1", "networkpolicies"}, "networking.k8s.io/v1", "NetworkPolicy"},
      {{"rbac.authorization.k8s.io", "v1", "roles"}, "rbac.authorization.k8s.io/v1", "Role"},
      {{"rbac.authorization.k8s.io", "v1", "rolebindings"},
       "rbac.authorization.k8s.io/v1",
       "RoleBinding"},
      {{"rbac.authorization.k8s.io", "v1", "clusterroles", false},
       "rbac.authorization.k8s.io/v1",
       "ClusterRole"},
      {{"rbac.authorization.k8s.io", "v1", "clusterrolebindings", false},
       "rbac.authorization.k8s.io/v1",
       "ClusterRoleBinding"},
  };
  return kKinds;
}

GarbageCollector::GarbageCollector(ControllerContext& ctx)
    : Controller("garbagecollector"), ctx_(ctx) {
  for (size_t i = 0; i < kinds().size(); ++i) {
    auto entry = std::make_unique<Watched>();
    entry->kind = kinds()[i];
    entry->informer = &ctx.informers.informer(kinds()[i].resource);
    watch_kind(i, *entry->informer);
    watched_.push_back(std::move(entry));
  }
  ctx.informers.informer(kCustomResourceDefinitions)
      .add_handler(
          {[this](const client::ObjectPtr& crd) { track_crd(*crd); },
           [this](const client::ObjectPtr&, const client::ObjectPtr& crd) { track_crd(*crd); },
           nullptr});
}

// The custom resources' informers end before the collector they call into.
GarbageCollector::~GarbageCollector() {
  for (const Watched* w : all_watched()) {
    if (w->owned) w->owned->stop();
  }
}

void GarbageCollector::watch_kind(size_t index, client::Informer& informer) {
  informer.add_index(kOwnerIndex, [](const json& o) { return owner_uids(o); });
  informer.add_handler(
      {[this, index](const client::ObjectPtr& o) { observe(index, nullptr, o, false); },
       [this, index](const client::ObjectPtr& old, const client::ObjectPtr& o) {
         observe(index, old, o, false);
       },
       [this, index](const client::ObjectPtr& o) { observe(index, nullptr, o, true); }});
}

const GarbageCollector::Watched* GarbageCollector::watched(size_t index) const {
  std::lock_guard lock(kinds_mu_);
  return index < watched_.size() ? watched_[index].get() : nullptr;
}

std::vector<const GarbageCollector::Watched*> GarbageCollector::all_watched() const {
  std::lock_guard lock(kinds_mu_);
  std::vector<const Watched*> out;
  for (const auto& w : watched_) out.push_back(w.get());
  return out;
}

std::optional<size_t> GarbageCollector::find_kind(const std::string& group,
                                                  const std::string& kind) const {
  std::lock_guard lock(kinds_mu_);
  for (size_t i = 0; i < watched_.size(); ++i) {
    const Kind& k = watched_[i]->kind;
    if (k.kind == kind && k.resource.group == group) return i;
  }
  return std::nullopt;
}

// A CRD that is Established gets an informer on its storage version, once.
void GarbageCollector::track_crd(const json& crd) {
  if (condition_status(crd, "Established") != "True") return;
  const json spec = crd.value("spec", json::object());
  const json names = spec.value("names", json::object());
  Kind kind;
  kind.resource.group = spec.value("group", "");
  kind.resource.plural = names.value("plural", "");
  kind.resource.namespaced = spec.value("scope", "") != "Cluster";
  kind.kind = names.value("kind", "");
  for (const auto& v : spec.value("versions", json::array())) {
    if (v.value("storage", false)) kind.resource.version = v.value("name", "");
  }
  if (kind.resource.group.empty() || kind.resource.plural.empty() || kind.kind.empty() ||
      kind.resource.version.empty()) {
    return;
  }
  kind.api_version = kind.resource.api_version();
  client::Informer* informer = nullptr;
  {
    std::lock_guard lock(kinds_mu_);
    auto [it, added] =
        custom_.emplace(kind.resource.group + "/" + kind.resource.plural, watched_.size());
    if (!added) return;
    auto entry = std::make_unique<Watched>();
    entry->kind = kind;
    entry->owned = std::make_unique<client::Informer>(
        ctx_.client, kind.resource, client::ListOptions{}, ctx_.informers.shared_objects());
    entry->informer = informer = entry->owned.get();
    watch_kind(it->second, *informer);
    watched_.push_back(std::move(entry));
  }
  informer->start();
  requeue_dependents_of_kind(kind);
}

// Objects whose owner is of a kind only now watched: their owners were unknown until now.
void GarbageCollector::requeue_dependents_of_kind(const Kind& kind) {
  const std::vector<const Watched*> all = all_watched();
  for (size_t i = 0; i < all.size(); ++i) {
    for (const auto& object : all[i]->informer->list()) {
      for (const auto& ref : owner_refs(*object)) {
        if (ref.value("kind", "") == kind.kind &&
            group_of(ref.value("apiVersion", "")) == kind.resource.group) {
          enqueue(queue_key(i, *object));
          break;
        }
      }
    }
  }
}

void GarbageCollector::observe(size_t kind, const client::ObjectPtr& old,
                               const client::ObjectPtr& object, bool deleted) {
  const std::string& uid = uid_of(*object);
  std::string key = queue_key(kind, *object);
  {
    std::lock_guard lock(mu_);
    if (deleted) {
      by_uid_.erase(uid);
    } else {
      by_uid_[uid] = key;
    }
  }
  // An object's owners are checked when it appears and when its owners change, as upstream's
  // graph builder does; a deleted owner requeues its dependents (below). An update that
  // leaves them alone (a pod's binding or status) has nothing new to check.
  const bool owners_changed = old == nullptr || owner_refs(*old) != owner_refs(*object) ||
                              being_deleted(*old) != being_deleted(*object);
  if (!deleted && ((owners_changed && !owner_refs(*object).empty()) ||
                   has_finalizer(*object, "orphan") ||
                   has_finalizer(*object, "foregroundDeletion"))) {
    enqueue(key);
  }
  // A change of a dependent may unblock its foreground-deleting owners; a deleted owner
  // leaves its dependents dangling.
  if (deleted || being_deleted(*object)) {
    for (const auto& [k, dependent] : dependents_of(uid)) enqueue(queue_key(k, *dependent));
    for (const auto& owner_uid : owner_uids(*object)) {
      std::lock_guard lock(mu_);
      if (auto it = by_uid_.find(owner_uid); it != by_uid_.end()) enqueue(it->second);
    }
  }
}

std::vector<std::pair<size_t, client::ObjectPtr>> GarbageCollector::dependents_of(
    const std::string& uid) const {
  std::vector<std::pair<size_t, client::ObjectPtr>> out;
  const std::vector<const Watched*> all = all_watched();
  for (size_t i = 0; i < all.size(); ++i) {
    for (auto& o : all[i]->informer->by_index(kOwnerIndex, uid)) out.emplace_back(i, std::move(o));
  }
  return out;
}

GarbageCollector::OwnerState GarbageCollector::owner_state(const json& ref, const std::string& ns,
                                                           client::ObjectPtr* cached) {
  std::string uid = ref.value("uid", "");
  std::string group = group_of(ref.value("apiVersion", ""));
  std::optional<size_t> index = find_kind(group, ref.value("kind", ""));
  if (!index) return OwnerState::kUnknown;  // a kind we do not watch: never delete for it
  const Watched* w = watched(*index);
  const Kind* kind = &w->kind;
  std::string owner_ns = kind->resource.namespaced ? ns : "";
  std::string name = ref.value("name", "");
  auto in_cache = w->informer->get(owner_ns.empty() ? name : owner_ns + "/" + name);
  if (in_cache && uid_of(*in_cache) == uid) {
    *cached = std::move(in_cache);
    return OwnerState::kPresent;
  }
  // Not in the cache (or another uid): ask the API before calling it gone.
  auto live = client::get(ctx_.client, kind->resource, owner_ns, name);
  if (live.is_ok()) return uid_of(*live) == uid ? OwnerState::kPresent : OwnerState::kAbsent;
  return live.status().code() == Code::kNotFound ? OwnerState::kAbsent : OwnerState::kUnknown;
}

Status GarbageCollector::reconcile(const std::string& key) {
  auto [kind, name_key] = parse_key(key);
  const Watched* w = watched(kind);
  if (!w) return Status::ok();
  auto object = w->informer->get(name_key);
  if (!object) return Status::ok();
  if (being_deleted(*object) && has_finalizer(*object, "orphan")) {
    RETURN_IF_ERROR(orphan_dependents(*object));
    return remove_finalizer(kind, *object, "orphan");
  }
  if (being_deleted(*object) && has_finalizer(*object, "foregroundDeletion")) {
    bool blocked = false;
    RETURN_IF_ERROR(delete_dependents(*object, blocked));
    if (!blocked) return remove_finalizer(kind, *object, "foregroundDeletion");
    // The dependents' deletions requeue this owner (observe()).
    return Status::ok();
  }
  return check_owners(kind, *object);
}

Status GarbageCollector::check_owners(size_t kind, const json& object) {
  const json& refs = owner_refs(object);
  if (refs.empty() || being_deleted(object)) return Status::ok();
  const std::string& ns = namespace_of(object);
  json kept = json::array();
  bool waiting_owner = false;
  size_t absent = 0;
  for (const auto& ref : refs) {
    client::ObjectPtr owner;
    OwnerState state = owner_state(ref, ns, &owner);
    if (state == OwnerState::kAbsent) {
      ++absent;
      continue;
    }
    kept.push_back(ref);
    if (owner && being_deleted(*owner) && has_finalizer(*owner, "foregroundDeletion") &&
        ref.value("blockOwnerDeletion", false)) {
      waiting_owner = true;
    }
  }
  const auto& resource = watched(kind)->kind.resource;
  client::DeleteOptions options;
  options.precondition_uid = uid_of(object);
  if (absent == refs.size()) {
    options.propagation_policy = "Background";
    Status s = client::remove(ctx_.client, resource, ns, name_of(object), options);
    return s.code() == Code::kNotFound ? Status::ok() : s;
  }
  if (absent > 0) {
    auto written = patch_metadata(ctx_.client, resource, object, {{"ownerReferences", kept}});
    return written.is_ok() || written.status().code() == Code::kNotFound ? Status::ok()
                                                                         : written.status();
  }
  if (waiting_owner) {
    // Every owner is there but one deletes in the foreground and waits for this object.
    options.propagation_policy = "Foreground";
    Status s = client::remove(ctx_.client, resource, ns, name_of(object), options);
    return s.code() == Code::kNotFound ? Status::ok() : s;
  }
  return Status::ok();
}

Status GarbageCollector::orphan_dependents(const json& owner) {
  const std::string& uid = uid_of(owner);
  for (const auto& [k, dependent] : dependents_of(uid)) {
    auto written = patch_metadata(ctx_.client, watched(k)->kind.resource, *dependent,
                                  {{"ownerReferences", refs_without(*dependent, uid)}});
    if (!written.is_ok() && written.status().code() != Code::kNotFound) return written.status();
  }
  return Status::ok();
}

Status GarbageCollector::delete_dependents(const json& owner, bool& blocked) {
  const std::string& uid = uid_of(owner);
  for (const auto& [k, dependent] : dependents_of(uid)) {
    bool blocks = false;
    for (const auto& ref : owner_refs(*dependent)) {
      if (ref.value("uid", "") == uid && ref.value("blockOwnerDeletion", false)) blocks = true;
    }
    if (blocks) blocked = true;
    if (being_deleted(*dependent)) continue;
    client::DeleteOptions options;
    options.precondition_uid = uid_of(*dependent);
    options.propagation_policy = "Foreground";
    Status s = client::remove(ctx_.client, watched(k)->kind.resource, namespace_of(*dependent),
                              name_of(*dependent), options);
    if (!s.is_ok() && s.code() != Code::kNotFound) return s;
  }
  return Status::ok();
}

Status GarbageCollector::remove_finalizer(size_t kind, const json& object,
                                          std::string_view finalizer) {
  json kept = json::array();
  for (const auto& f : api::member(api::member(object, "metadata"), "finalizers")) {
    if (f != finalizer) kept.push_back(f);
  }
  auto written =
      patch_metadata(ctx_.client, watched(kind)->kind.resource, object, {{"finalizers", kept}});
  return written.is_ok() || written.status().code() == Code::kNotFound ? Status::ok()
                                                                       : written.status();
}

}  // namespace k3c::controllers
