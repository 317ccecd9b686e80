// Stored object -> cache entry (see object_codec.h).
#include "roles/apiserver/object_codec.h"

#include <map>

namespace k3c::apiserver {
namespace {

using nlohmann::json;

struct KindKey {
  std::string_view group, kind;
  bool operator<(const KindKey& o) const {
    return std::tie(group, kind) < std::tie(o.group, o.kind);
  }
};

// Upstream's field-label conversion functions, per kind.
const std::map<KindKey, std::vector<std::string>>& field_table() {
  static const std::map<KindKey, std::vector<std::string>> table = {
      {{"", "Pod"},
       {"spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName",
        "spec.hostNetwork", "status.phase", "status.podIP", "status.nominatedNodeName"}},
      {{"", "Event"},
       {"involvedObject.kind", "involvedObject.namespace", "involvedObject.name",
        "involvedObject.uid", "involvedObject.apiVersion", "involvedObject.resourceVersion",
        "involvedObject.fieldPath", "reason", "reportingComponent", "source", "type"}},
      {{"", "Secret"}, {"type"}},
      {{"", "Node"}, {"spec.unschedulable"}},
      {{"", "Namespace"}, {"status.phase"}},
      {{"", "ReplicationController"}, {"status.replicas"}},
      {{"apps", "ReplicaSet"}, {"status.replicas"}},
      {{"batch", "Job"}, {"status.successful"}},
      {{"certificates.k8s.io", "CertificateSigningRequest"}, {"spec.signerName"}},
      {{"events.k8s.io", "Event"},
       {"regarding.kind", "regarding.namespace", "regarding.name", "regarding.uid",
        "regarding.apiVersion", "regarding.resourceVersion", "regarding.fieldPath", "reason",
        "reportingController", "type"}},
  };
  return table;
}

std::string_view group_of(std::string_view api_version) {
  auto slash = api_version.find('/');
  return slash == std::string_view::npos ? std::string_view() : api_version.substr(0, slash);
}

}  // namespace

const std::vector<std::string>& selectable_fields(std::string_view group, std::string_view kind) {
  static const std::vector<std::string> none;
  auto it = field_table().find({group, kind});
  return it == field_table().end() ? none : it->second;
}

bool is_selectable(std::string_view group, std::string_view kind, std::string_view field) {
  if (field == "metadata.name" || field == "metadata.namespace") return true;
  for (const auto& f : selectable_fields(group, kind)) {
    if (f == field) return true;
  }
  return false;
}

std::string field_value(const json& object, std::string_view path) {
  const json* at = &object;
  // "source" on core Events selects source.component.
  std::string full(path == "source" ? "source.component" : path);
  size_t start = 0;
  while (start <= full.size()) {
    size_t dot = full.find('.', start);
    std::string part =
        full.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!at->is_object()) return "";
    auto it = at->find(part);
    if (it == at->end()) return "";
    at = &*it;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (at->is_string()) return at->get<std::string>();
  if (at->is_null()) return "";
  return at->dump();
}

CachedObject make_cached(const std::string& key, json object, int64_t revision) {
  CachedObject o;
  o.key = key;
  o.revision = revision;
  json& meta = object["metadata"];
  meta["resourceVersion"] = std::to_string(revision);
  o.namespace_ = meta.value("namespace", "");
  o.name = meta.value("name", "");
  o.uid = meta.value("uid", "");
  if (auto labels = meta.find("labels"); labels != meta.end() && labels->is_object()) {
    for (auto& [k, v] : labels->items()) {
      if (v.is_string()) o.labels.emplace(k, v.get<std::string>());
    }
  }
  // metadata.name and metadata.namespace are o.name and o.namespace_ (CachedObject::field).
  // Names view the static field table; empty values are left out (they read as "").
  auto add = [&](std::string_view name, std::string value) {
    if (!value.empty()) o.fields.emplace_back(name, std::move(value));
  };
  std::string api_version = object.value("apiVersion", "");
  std::string kind = object.value("kind", "");
  const auto& own = selectable_fields(group_of(api_version), kind);
  // Events are stored in the core shape and also listed through events.k8s.io/v1, whose
  // field selectors name the same fields differently.
  const bool core_event = api_version == "v1" && kind == "Event";
  const auto& events_api = core_event ? selectable_fields("events.k8s.io", "Event") : own;
  o.fields.reserve(own.size() + (core_event ? events_api.size() : 0));
  for (const auto& f : own) add(f, field_value(object, f));
  if (core_event) {
    for (const auto& f : events_api) {
      std::string core = f.starts_with("regarding.") ? "involvedObject." + f.substr(10)
                         : f == "reportingController" ? "reportingComponent"
                                                      : f;
      add(f, field_value(object, core));
    }
  }
  o.fields.shrink_to_fit();  // values left out: no slack held for as long as the cache holds it
  o.json = object.dump();
  // dump() grows the string by doubling: up to half of it would be slack, held as long as the
  // cache (and its history) holds the object.
  o.json.shrink_to_fit();
  return o;
}

Result<CachedObject> decode_stored(const store::KeyValue& kv) {
  json object = json::parse(kv.value, nullptr, /*allow_exceptions=*/false);
  if (object.is_discarded() || !object.is_object()) {
    return error(Code::kInternal, "stored object " + kv.key + " is not a JSON object");
  }
  try {
    return make_cached(kv.key, std::move(object), kv.mod_revision);
  } catch (const json::exception& e) {
    // Metadata of the wrong type: the object was not written by us.
    return error(Code::kInternal, "stored object " + kv.key + " has bad metadata: " + e.what());
  }
}

}  // namespace k3c::apiserver
