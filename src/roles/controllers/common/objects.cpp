#include "roles/controllers/common/objects.h"

#include <charconv>

#include "core/ids.h"
#include "roles/controllers/common/object_reads.h"

namespace k3c::controllers {

namespace {
const json& empty_array() {
  static const json kEmpty = json::array();
  return kEmpty;
}
const json* meta_of(const json& o) {
  if (!o.is_object()) return nullptr;
  auto m = o.find("metadata");
  return m != o.end() && m->is_object() ? &*m : nullptr;
}
}  // namespace

const std::string& meta_str(const json& object, const char* field) {
  static const std::string kEmpty;
  const json* m = meta_of(object);
  if (!m) return kEmpty;
  auto f = m->find(field);
  return f != m->end() && f->is_string() ? f->get_ref<const std::string&>() : kEmpty;
}

uint64_t resource_version_number(const json& object) {
  const std::string& rv = meta_str(object, "resourceVersion");
  uint64_t n = 0;
  auto [end, ec] = std::from_chars(rv.data(), rv.data() + rv.size(), n);
  return ec == std::errc() && end == rv.data() + rv.size() ? n : 0;
}

bool being_deleted(const json& object) { return deletion_marked(object); }

bool has_finalizer(const json& object, std::string_view finalizer) {
  const json* m = meta_of(object);
  if (!m) return false;
  auto f = m->find("finalizers");
  if (f == m->end() || !f->is_array()) return false;
  for (const auto& v : *f) {
    if (v.is_string() && v.get_ref<const std::string&>() == finalizer) return true;
  }
  return false;
}

const json& owner_refs(const json& object) {
  const json* m = meta_of(object);
  if (!m) return empty_array();
  auto r = m->find("ownerReferences");
  return r != m->end() && r->is_array() ? *r : empty_array();
}

const json* controller_ref(const json& object) {
  for (const auto& ref : owner_refs(object)) {
    if (!ref.is_object()) continue;
    auto c = ref.find("controller");
    if (c != ref.end() && c->is_boolean() && c->get<bool>()) return &ref;
  }
  return nullptr;
}

const std::string& ref_uid(const json& ref) {
  static const std::string kEmpty;
  if (!ref.is_object()) return kEmpty;
  auto u = ref.find("uid");
  return u != ref.end() && u->is_string() ? u->get_ref<const std::string&>() : kEmpty;
}

std::vector<std::string> owner_uids(const json& object) {
  std::vector<std::string> out;
  for (const auto& ref : owner_refs(object)) {
    if (ref.is_object()) out.push_back(ref.value("uid", ""));
  }
  return out;
}

json controller_ref_to(const json& owner, const std::string& api_version, const std::string& kind) {
  return {{"apiVersion", api_version}, {"kind", kind},       {"name", name_of(owner)},
          {"uid", uid_of(owner)},      {"controller", true}, {"blockOwnerDeletion", true}};
}

std::string condition_status(const json& object, std::string_view type) {
  auto s = object.find("status");
  if (s == object.end() || !s->is_object()) return "";
  auto c = s->find("conditions");
  if (c == s->end() || !c->is_array()) return "";
  for (const auto& cond : *c) {
    if (!cond.is_object()) continue;
    // Compared in place: every sync asks this of every pod.
    auto t = cond.find("type");
    if (t == cond.end() || !t->is_string() || t->get_ref<const std::string&>() != type) continue;
    auto status = cond.find("status");
    return status != cond.end() && status->is_string() ? status->get<std::string>() : "";
  }
  return "";
}

bool set_condition(json& status, const std::string& type, const std::string& value,
                   const std::string& reason, const std::string& message, const std::string& now,
                   bool with_update_time) {
  json& conditions = status["conditions"];
  if (!conditions.is_array()) conditions = json::array();
  for (auto& c : conditions) {
    if (!c.is_object() || c.value("type", "") != type) continue;
    bool same = c.value("status", "") == value && c.value("reason", "") == reason &&
                c.value("message", "") == message;
    if (same) return false;
    if (c.value("status", "") != value) c["lastTransitionTime"] = now;
    c["status"] = value;
    c["reason"] = reason;
    c["message"] = message;
    if (with_update_time) c["lastUpdateTime"] = now;
    return true;
  }
  json c = {{"type", type},
            {"status", value},
            {"reason", reason},
            {"message", message},
            {"lastTransitionTime", now}};
  if (with_update_time) c["lastUpdateTime"] = now;
  conditions.push_back(std::move(c));
  return true;
}

std::string pod_phase(const json& pod) {
  auto status = pod.find("status");
  if (status == pod.end() || !status->is_object()) return "";
  auto phase = status->find("phase");
  return phase != status->end() && phase->is_string() ? phase->get<std::string>() : "";
}

bool pod_active(const json& pod) { return pod_counts_active(pod); }

bool pod_ready(const json& pod) { return pod_counts_ready(pod); }

}  // namespace k3c::controllers

namespace k3c::controllers {

std::string ready_since(const json& pod) {
  auto s = pod.find("status");
  if (s == pod.end() || !s->is_object()) return "";
  auto c = s->find("conditions");
  if (c == s->end() || !c->is_array()) return "";
  for (const auto& cond : *c) {
    if (cond.is_object() && cond.value("type", "") == "Ready" && cond.value("status", "") == "True")
      return cond.value("lastTransitionTime", "");
  }
  return "";
}

bool pod_available(const json& pod, int64_t min_ready_seconds,
                   std::chrono::system_clock::time_point now) {
  return pod_counts_available(pod, min_ready_seconds, now);
}

cjson::Value member_or_null(const cjson::Value& object, std::string_view key) {
  static const auto kNull = cjson::Document::from(nullptr);
  if (!object.is_object()) return kNull->root();
  auto it = object.find(key);
  return it == object.end() ? kNull->root() : it.value();
}

bool available_since(std::string_view ready_transition, int64_t min_ready_seconds,
                     std::chrono::system_clock::time_point now) {
  auto since = parse_rfc3339(ready_transition);
  return since && *since + std::chrono::seconds(min_ready_seconds) <= now;
}

json pod_from_template(const json& pod_template, const json& owner, const std::string& api_version,
                       const std::string& kind) {
  const json empty = json::object();
  const json& tmpl = pod_template.is_object() ? pod_template : empty;
  auto m = tmpl.find("metadata");
  const json& tmeta = m != tmpl.end() && m->is_object() ? *m : empty;
  json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}};
  json& meta = pod["metadata"];
  meta["namespace"] = namespace_of(owner);
  for (const char* field : {"labels", "annotations", "finalizers"}) {
    if (tmeta.contains(field) && !tmeta[field].is_null()) meta[field] = tmeta[field];
  }
  meta["ownerReferences"] = json::array({controller_ref_to(owner, api_version, kind)});
  auto spec = tmpl.find("spec");
  pod["spec"] = spec != tmpl.end() && spec->is_object() ? *spec : json::object();
  return pod;
}

}  // namespace k3c::controllers
