#include "roles/controllers/garbagecollector/garbage_collector.h"

#include "roles/controllers/common/objects.h"

namespace k3c::controllers {

namespace {

constexpr const char* kOwnerIndex = "owner-uid";

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
  };
  return kKinds;
}

GarbageCollector::GarbageCollector(ControllerContext& ctx)
    : Controller("garbagecollector"), ctx_(ctx) {
  for (size_t i = 0; i < kinds().size(); ++i) {
    auto& informer = ctx.informers.informer(kinds()[i].resource);
    informer.add_index(kOwnerIndex, [](const json& o) { return owner_uids(o); });
    informer.add_handler(
        {[this, i](const client::ObjectPtr& o) { observe(i, o, false); },
         [this, i](const client::ObjectPtr&, const client::ObjectPtr& o) { observe(i, o, false); },
         [this, i](const client::ObjectPtr& o) { observe(i, o, true); }});
    informers_.push_back(&informer);
  }
}

void GarbageCollector::observe(size_t kind, const client::ObjectPtr& object, bool deleted) {
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
  if (!deleted && (!owner_refs(*object).empty() || has_finalizer(*object, "orphan") ||
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
  for (size_t i = 0; i < informers_.size(); ++i) {
    for (auto& o : informers_[i]->by_index(kOwnerIndex, uid)) out.emplace_back(i, std::move(o));
  }
  return out;
}

GarbageCollector::OwnerState GarbageCollector::owner_state(const json& ref, const std::string& ns,
                                                           client::ObjectPtr* cached) {
  std::string uid = ref.value("uid", "");
  std::string group = group_of(ref.value("apiVersion", ""));
  std::string kind_name = ref.value("kind", "");
  const Kind* kind = nullptr;
  size_t index = 0;
  for (size_t i = 0; i < kinds().size(); ++i) {
    if (kinds()[i].kind == kind_name && kinds()[i].resource.group == group) {
      kind = &kinds()[i];
      index = i;
    }
  }
  if (!kind) return OwnerState::kUnknown;  // a kind we do not watch: never delete for it
  std::string owner_ns = kind->resource.namespaced ? ns : "";
  std::string name = ref.value("name", "");
  auto in_cache = informers_[index]->get(owner_ns.empty() ? name : owner_ns + "/" + name);
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
  if (kind >= informers_.size()) return Status::ok();
  auto object = informers_[kind]->get(name_key);
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
  const auto& resource = kinds()[kind].resource;
  client::DeleteOptions options;
  options.precondition_uid = uid_of(object);
  if (absent == refs.size()) {
    options.propagation_policy = "Background";
    Status s = client::remove(ctx_.client, resource, ns, name_of(object), options);
    return s.code() == Code::kNotFound ? Status::ok() : s;
  }
  if (absent > 0) {
    json updated = object;
    updated["metadata"]["ownerReferences"] = kept;
    auto written = client::update(ctx_.client, resource, updated);
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
    auto written = client::update(ctx_.client, kinds()[k].resource, without_owner(*dependent, uid));
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
    Status s = client::remove(ctx_.client, kinds()[k].resource, namespace_of(*dependent),
                              name_of(*dependent), options);
    if (!s.is_ok() && s.code() != Code::kNotFound) return s;
  }
  return Status::ok();
}

Status GarbageCollector::remove_finalizer(size_t kind, const json& object,
                                          std::string_view finalizer) {
  json updated = object;
  json kept = json::array();
  for (const auto& f : updated["metadata"].value("finalizers", json::array())) {
    if (f != finalizer) kept.push_back(f);
  }
  updated["metadata"]["finalizers"] = kept;
  auto written = client::update(ctx_.client, kinds()[kind].resource, updated);
  return written.is_ok() || written.status().code() == Code::kNotFound ? Status::ok()
                                                                       : written.status();
}

}  // namespace k3c::controllers
