// The admission plugins that consult the watch cache (see admission_plugins.h).
#include "roles/apiserver/admission_plugins.h"

#include "roles/apiserver/limit_ranger.h"
#include "roles/apiserver/object_meta.h"
#include "roles/apiserver/pod_admission.h"

namespace k3c::apiserver {
namespace {

using nlohmann::json;

constexpr int kChargeAttempts = 8;

bool is(const api::Resource& r, std::string_view group, std::string_view plural) {
  return r.group == group && r.plural == plural;
}

std::string object_name(const json& o) {
  const json& meta = o.is_object() && o.contains("metadata") ? o["metadata"] : json();
  return meta.is_object() ? meta.value("name", "") : "";
}

ApiError forbidden(const api::Resource& r, const std::string& name, const std::string& reason) {
  return admission_forbidden(r.group, r.plural, name, reason);
}

}  // namespace

std::vector<AdmissionPlugins::Stored> AdmissionPlugins::list(const GroupResource& gr,
                                                             std::string_view ns,
                                                             int64_t min_revision) {
  std::string prefix;
  bool namespaced = true;
  for (const auto& r : registry_.resources()) {
    if (r.group == gr.first && r.plural == gr.second && r.stored()) {
      prefix = r.storage_prefix;
      namespaced = r.namespaced;
      break;
    }
  }
  // Custom resources are not in the built-in registry; their keys follow upstream's form.
  if (prefix.empty()) prefix = api::custom_resource_storage_prefix(gr.first, gr.second);
  prefix += namespaced ? "/" + std::string(ns) + "/" : "/";
  std::vector<Stored> out;
  auto listed = cache_.list({prefix, {}, {}}, min_revision, "", 0);
  if (!listed.is_ok()) return out;
  for (const auto& item : listed->items) {
    json o = json::parse(item->json.text(), nullptr, false);
    if (o.is_object()) out.push_back({item->key, std::move(o), item->revision});
  }
  return out;
}

std::vector<json> AdmissionPlugins::objects(const GroupResource& gr, std::string_view ns) {
  std::vector<json> out;
  for (auto& s : list(gr, ns)) out.push_back(std::move(s.object));
  return out;
}

ResourceList AdmissionPlugins::recalculated(const json& quota, std::string_view ns) {
  (void)cache_.wait_for(0);  // see every acknowledged write; a timeout only makes it older
  return quota_used(quota, [&](const GroupResource& gr) { return objects(gr, ns); });
}

void AdmissionPlugins::set_quota_status(json& quota, std::string_view ns, bool create) {
  const json& spec = quota.contains("spec") ? quota["spec"] : json();
  ResourceList hard = resource_list(spec.is_object() ? spec.value("hard", json()) : json());
  ResourceList used = recalculated(quota, ns);
  // A quota being created is not in the cache yet, but counts itself.
  if (create) {
    for (const char* n : {"resourcequotas", "count/resourcequotas"}) {
      if (used.count(n)) used[n] += api::Quantity::from_value(1);
    }
  }
  quota["status"] = {{"hard", to_json(hard)}, {"used", to_json(used)}};
}

std::optional<ApiError> AdmissionPlugins::mutate(const AdmissionAttributes& a, json& object,
                                                 const json* old) {
  if (!a.subresource.empty() || !object.is_object()) return std::nullopt;
  const api::Resource& r = a.resource;
  if (is(r, "", "pods")) {
    if (!a.create) {
      if (old) keep_pod_priority(object, *old);
      return std::nullopt;
    }
    limit_range_defaults(object, objects({"", "limitranges"}, a.namespace_));
    std::string refused =
        admit_pod_priority(object, objects({"scheduling.k8s.io", "priorityclasses"}, ""));
    if (!refused.empty()) return forbidden(r, object_name(object), refused);
    default_toleration_seconds(object);
  } else if (is(r, "", "persistentvolumeclaims") && a.create) {
    default_storage_class(object, objects({"storage.k8s.io", "storageclasses"}, ""));
  } else if (is(r, "", "resourcequotas")) {
    bool spec_changed =
        !old || !old->is_object() || object.value("spec", json()) != old->value("spec", json());
    if (spec_changed) set_quota_status(object, a.namespace_, a.create);
  }
  return std::nullopt;
}

std::optional<ApiError> AdmissionPlugins::validate(const AdmissionAttributes& a, const json& object,
                                                   const json* old) {
  if (!a.subresource.empty() || !object.is_object()) return std::nullopt;
  const api::Resource& r = a.resource;
  bool pod = is(r, "", "pods"), claim = is(r, "", "persistentvolumeclaims");
  if ((pod && a.create) || claim) {
    std::string kind = pod ? "Pod" : "PersistentVolumeClaim";
    std::string refused =
        limit_range_violations(kind, object, objects({"", "limitranges"}, a.namespace_));
    if (!refused.empty()) return forbidden(r, object_name(object), refused);
  }
  if (is(r, "scheduling.k8s.io", "priorityclasses")) {
    std::string refused =
        check_priority_class(object, objects({"scheduling.k8s.io", "priorityclasses"}, ""));
    if (!refused.empty()) return forbidden(r, object_name(object), refused);
  }
  if (r.namespaced) return charge_quotas(a, object, old);
  return std::nullopt;
}

std::optional<ApiError> AdmissionPlugins::charge_quotas(const AdmissionAttributes& a,
                                                        const json& object, const json* old) {
  GroupResource gr{a.resource.group, a.resource.plural};
  if (!quota_charges(gr, a.create)) return std::nullopt;
  std::vector<Stored> quotas = list({"", "resourcequotas"}, a.namespace_);
  if (quotas.empty()) return std::nullopt;
  ResourceList delta = quota_delta(gr, object, a.create ? nullptr : old);
  for (Stored& q : quotas) {
    if (!quota_applies(q.object, gr, object)) continue;
    std::string refused = charge(a, std::move(q), object, delta);
    if (!refused.empty()) return forbidden(a.resource, object_name(object), refused);
  }
  return std::nullopt;
}

std::string AdmissionPlugins::charge(const AdmissionAttributes& a, Stored q, const json& object,
                                     const ResourceList& delta) {
  GroupResource gr{a.resource.group, a.resource.plural};
  // Writes q's status; false when another writer got in first (q is then re-read).
  auto write = [&](const json& status) {
    json updated = without_resource_version(q.object);
    updated["status"] = status;
    auto written = store_.update(q.key, updated.dump(), q.revision);
    if (written.is_ok()) {
      q.object = std::move(updated);
      q.revision = written->mod_revision;
      return true;
    }
    auto fresh = cache_.get(q.key, 0);
    if (!fresh.is_ok()) {
      q.object = json();  // gone: it no longer limits anything
      return false;
    }
    q.object = json::parse((*fresh)->json.text(), nullptr, false);
    q.revision = (*fresh)->revision;
    return false;
  };
  bool recounted = false;
  for (int attempt = 0; attempt < kChargeAttempts && q.object.is_object(); ++attempt) {
    QuotaCheck check = check_quota(q.object, gr, object, delta);
    if (!check.error.empty()) {
      // Refused: usage may be stale (deleted objects are not subtracted here), so count
      // again once before saying no. A missing request stays missing.
      if (recounted || check.error.starts_with("failed quota:")) return check.error;
      recounted = true;
      json status = q.object.value("status", json::object());
      json used = to_json(recalculated(q.object, a.namespace_));
      if (status.value("used", json()) == used) return check.error;
      status["used"] = std::move(used);
      if (a.dry_run) {
        q.object["status"] = std::move(status);
      } else {
        write(status);
      }
      continue;
    }
    if (!check.charged || a.dry_run) return "";
    json status = q.object.value("status", json::object());
    status["used"] = to_json(check.used);
    if (write(status)) return "";
  }
  if (!q.object.is_object()) return "";
  return "unable to update the usage of quota " + object_name(q.object) +
         " after repeated conflicts, please retry";
}

}  // namespace k3c::apiserver
