#include "roles/controllers/statefulset/stateful_pods.h"

#include <charconv>
#include <set>

#include "api/json_fields.h"

namespace k3c::controllers {

namespace {

const json& stateful_field(const json& o, const char* name) { return api::member(o, name); }
using api::text;

const json& claim_templates(const json& set) {
  static const json kEmpty = json::array();
  const json& t = stateful_field(stateful_field(set, "spec"), "volumeClaimTemplates");
  return t.is_array() ? t : kEmpty;
}

std::string policy(const json& set, const char* when) {
  std::string p = text(
      stateful_field(stateful_field(set, "spec"), "persistentVolumeClaimRetentionPolicy"), when);
  return p == "Delete" ? p : "Retain";
}

bool refers_to(const json& ref, const std::string& kind, const std::string& name) {
  return ref.is_object() && ref.value("kind", "") == kind && ref.value("name", "") == name;
}

}  // namespace

ParentAndOrdinal parse_pod_name(std::string_view name) {
  size_t dash = name.rfind('-');
  if (dash == std::string_view::npos || dash + 1 == name.size()) return {};
  std::string_view digits = name.substr(dash + 1);
  int32_t value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size() || value < 0 ||
      digits.front() == '+')
    return {};
  return {std::string(name.substr(0, dash)), value};
}

OrdinalRange ordinal_range(const json& set) {
  const json& spec = stateful_field(set, "spec");
  OrdinalRange r;
  const json& replicas = stateful_field(spec, "replicas");
  r.replicas = replicas.is_number_integer() ? std::max<int64_t>(replicas.get<int64_t>(), 0) : 1;
  const json& start = stateful_field(stateful_field(spec, "ordinals"), "start");
  if (start.is_number_integer()) r.start = std::max<int64_t>(start.get<int64_t>(), 0);
  return r;
}

bool is_member(const json& set, const json& pod) {
  auto p = parse_pod_name(name_of(pod));
  return p.ordinal >= 0 && p.parent == name_of(set);
}

std::string pod_name(const json& set, int64_t ordinal) {
  return name_of(set) + "-" + std::to_string(ordinal);
}

std::string claim_name(const json& set, const json& claim_template, int64_t ordinal) {
  return name_of(claim_template) + "-" + name_of(set) + "-" + std::to_string(ordinal);
}

std::vector<json> claims_for(const json& set, int64_t ordinal) {
  std::vector<json> out;
  const json& match_labels =
      stateful_field(stateful_field(stateful_field(set, "spec"), "selector"), "matchLabels");
  for (const json& t : claim_templates(set)) {
    if (!t.is_object()) continue;
    json claim = {{"apiVersion", "v1"}, {"kind", "PersistentVolumeClaim"}};
    json meta = t.value("metadata", json::object());
    if (!meta.is_object()) meta = json::object();
    for (const char* dropped : {"uid", "resourceVersion", "creationTimestamp", "ownerReferences",
                                "generation", "managedFields", "namespace"})
      meta.erase(dropped);
    meta["name"] = claim_name(set, t, ordinal);
    meta["namespace"] = namespace_of(set);
    if (match_labels.is_object() && !match_labels.empty()) {
      json& labels = meta["labels"];
      if (!labels.is_object()) labels = json::object();
      for (auto it = match_labels.begin(); it != match_labels.end(); ++it) labels[it.key()] = *it;
    }
    claim["metadata"] = std::move(meta);
    claim["spec"] = t.value("spec", json::object());
    out.push_back(std::move(claim));
  }
  return out;
}

json new_stateful_pod(const json& set, int64_t ordinal, const std::string& revision) {
  json pod = pod_from_template(stateful_field(stateful_field(set, "spec"), "template"), set,
                               "apps/v1", "StatefulSet");
  pod["metadata"]["name"] = pod_name(set, ordinal);
  pod = with_identity(set, pod);
  pod["metadata"]["labels"][kRevisionLabel] = revision;
  json& spec = pod["spec"];
  spec["hostname"] = pod_name(set, ordinal);
  std::string service = text(stateful_field(set, "spec"), "serviceName");
  if (!service.empty()) spec["subdomain"] = service;
  // The claims' volumes first, then the template's other volumes (one of the same name as a
  // claim template is replaced by it).
  json volumes = json::array();
  std::set<std::string> claimed;
  for (const json& t : claim_templates(set)) {
    if (!t.is_object()) continue;
    claimed.insert(name_of(t));
    volumes.push_back({{"name", name_of(t)},
                       {"persistentVolumeClaim", {{"claimName", claim_name(set, t, ordinal)}}}});
  }
  if (spec.contains("volumes") && spec["volumes"].is_array()) {
    for (const json& v : spec["volumes"]) {
      if (!v.is_object() || !claimed.count(v.value("name", ""))) volumes.push_back(v);
    }
  }
  if (!volumes.empty()) spec["volumes"] = std::move(volumes);
  return pod;
}

bool identity_matches(const json& set, const json& pod) {
  auto p = parse_pod_name(name_of(pod));
  if (p.ordinal < 0 || p.parent != name_of(set) || namespace_of(set) != namespace_of(pod))
    return false;
  const json& labels = stateful_field(stateful_field(pod, "metadata"), "labels");
  return text(labels, kPodNameLabel) == name_of(pod) &&
         text(labels, kPodIndexLabel) == std::to_string(p.ordinal);
}

json with_identity(const json& set, const json& pod) {
  json out = pod;
  auto p = parse_pod_name(name_of(pod));
  json& labels = out["metadata"]["labels"];
  if (!labels.is_object()) labels = json::object();
  labels[kPodNameLabel] = pod_name(set, p.ordinal);
  labels[kPodIndexLabel] = std::to_string(p.ordinal);
  return out;
}

bool storage_matches(const json& set, const json& pod) {
  auto p = parse_pod_name(name_of(pod));
  if (p.ordinal < 0) return false;
  const json& volumes = stateful_field(stateful_field(pod, "spec"), "volumes");
  for (const json& t : claim_templates(set)) {
    bool found = false;
    if (volumes.is_array()) {
      for (const json& v : volumes) {
        if (v.is_object() && v.value("name", "") == name_of(t) &&
            text(stateful_field(v, "persistentVolumeClaim"), "claimName") ==
                claim_name(set, t, p.ordinal))
          found = true;
      }
    }
    if (!found) return false;
  }
  return true;
}

json claim_owner_refs(const json& set, const json& pod, const json& claim) {
  json kept = json::array();
  bool foreign_controller = false;
  for (const json& ref : owner_refs(claim)) {
    if (refers_to(ref, "StatefulSet", name_of(set)) || refers_to(ref, "Pod", name_of(pod)))
      continue;
    if (ref.is_object() && ref.value("controller", false)) foreign_controller = true;
    kept.push_back(ref);
  }
  // Another controller owns the claim: leave it to that one (as upstream).
  if (foreign_controller) return kept;
  bool scaled_down = !ordinal_range(set).contains(parse_pod_name(name_of(pod)).ordinal);
  bool delete_when_scaled = policy(set, "whenScaled") == "Delete";
  bool delete_when_deleted = policy(set, "whenDeleted") == "Delete";
  if (delete_when_scaled && scaled_down) {
    if (!uid_of(pod).empty()) kept.push_back(controller_ref_to(pod, "v1", "Pod"));
  } else if (delete_when_deleted) {
    kept.push_back(controller_ref_to(set, "apps/v1", "StatefulSet"));
  }
  return kept;
}

bool is_created(const json& pod) { return !pod_phase(pod).empty(); }

bool running_and_ready(const json& pod) { return pod_phase(pod) == "Running" && pod_ready(pod); }

bool is_healthy(const json& pod) { return running_and_ready(pod) && !being_deleted(pod); }

}  // namespace k3c::controllers
