// The scale subresource (autoscaling/v1 Scale) of deployments, replicasets, statefulsets and
// replicationcontrollers: a view of spec.replicas, status.replicas and the label selector.
// Reads map the parent to a Scale; writes change the parent's spec.replicas through an
// update of the parent, so generation, strategies and concurrency follow the usual rules.
#include <algorithm>
#include <climits>

#include "api/patch.h"
#include "roles/apiserver/actions.h"
#include "roles/apiserver/content.h"

namespace k3c::apiserver {
namespace {

using nlohmann::json;

constexpr int kScaleAttempts = 8;

struct Requirement {
  std::string key;
  std::string op;  // "=", "in", "notin", "exists", "!"
  std::vector<std::string> values;
};

std::vector<std::string> scale_strings(const json& list) {
  std::vector<std::string> out;
  if (!list.is_array()) return out;
  for (const auto& v : list) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A label selector (matchLabels/matchExpressions, or a plain map for replication
// controllers) as upstream's labels.Selector prints it: requirements sorted by key,
// "k=v", "k in (a,b)", "k notin (a)", "k", "!k", joined by commas.
std::string selector_string(const json& selector, bool plain_map) {
  if (!selector.is_object()) return "";
  std::vector<Requirement> reqs;
  const json& labels = plain_map ? selector : selector.value("matchLabels", json::object());
  if (labels.is_object()) {
    for (auto& [k, v] : labels.items()) {
      if (v.is_string()) reqs.push_back({k, "=", {v.get<std::string>()}});
    }
  }
  if (!plain_map && selector.contains("matchExpressions") &&
      selector["matchExpressions"].is_array()) {
    for (const auto& e : selector["matchExpressions"]) {
      if (!e.is_object()) continue;
      std::string op = e.value("operator", ""), key = e.value("key", "");
      if (op == "In") reqs.push_back({key, "in", scale_strings(e.value("values", json()))});
      if (op == "NotIn") reqs.push_back({key, "notin", scale_strings(e.value("values", json()))});
      if (op == "Exists") reqs.push_back({key, "exists", {}});
      if (op == "DoesNotExist") reqs.push_back({key, "!", {}});
    }
  }
  std::stable_sort(reqs.begin(), reqs.end(),
                   [](const Requirement& a, const Requirement& b) { return a.key < b.key; });
  std::string out;
  for (const auto& r : reqs) {
    if (!out.empty()) out += ",";
    if (r.op == "=") {
      out += r.key + "=" + r.values.front();
    } else if (r.op == "exists") {
      out += r.key;
    } else if (r.op == "!") {
      out += "!" + r.key;
    } else {
      std::string vals;
      for (const auto& v : r.values) vals += (vals.empty() ? "" : ",") + v;
      out += r.key + " " + r.op + " (" + vals + ")";
    }
  }
  return out;
}

bool is_rc(const api::Resource& r) {
  return r.group.empty() && r.plural == "replicationcontrollers";
}

int64_t spec_replicas(const json& parent) {
  const json& spec = parent.value("spec", json::object());
  auto it = spec.find("replicas");
  return it != spec.end() && it->is_number_integer() ? it->get<int64_t>() : 1;  // the default
}

json scale_of(const api::Resource& r, const json& parent, int64_t revision) {
  const json& meta = parent["metadata"];
  json m = {{"name", meta.value("name", "")},
            {"namespace", meta.value("namespace", "")},
            {"uid", meta.value("uid", "")},
            {"resourceVersion", std::to_string(revision)},
            {"creationTimestamp", meta.value("creationTimestamp", json())}};
  const json& spec = parent.value("spec", json::object());
  const json& status = parent.value("status", json::object());
  json selector = spec.value("selector", json());
  // A replication controller without a selector selects its template's labels (defaulting).
  if (is_rc(r) && !selector.is_object() && spec.contains("template") &&
      spec["template"].is_object()) {
    selector = spec["template"].value("metadata", json::object()).value("labels", json());
  }
  json st = {{"replicas", status.value("replicas", 0)}};
  std::string sel = selector_string(selector, is_rc(r));
  if (!sel.empty()) st["selector"] = sel;
  return {{"kind", "Scale"},
          {"apiVersion", "autoscaling/v1"},
          {"metadata", std::move(m)},
          {"spec", {{"replicas", spec_replicas(parent)}}},
          {"status", std::move(st)}};
}

std::string patch_type(const http::Request& r) {
  std::string type(r.header("content-type").value_or(""));
  return type.substr(0, type.find(';'));
}

std::string rv_of(const json& o) {
  if (!o.is_object()) return "";  // a JSON patch is a list
  auto m = o.find("metadata");
  if (m == o.end() || !m->is_object()) return "";
  auto rv = m->find("resourceVersion");
  return rv != m->end() && rv->is_string() ? rv->get<std::string>() : "";
}

}  // namespace

http::Response Actions::scale(const Call& c) {
  if (c.info.verb != "get") return update_scale(c);
  auto current = actions::read(cache_, c.resource.storage_key(c.info.namespace_, c.info.name));
  if (!current.ok()) {
    if (current.error().code == Code::kNotFound) {
      return error_response(not_found(c.resource.group, c.resource.plural + "/scale", c.info.name));
    }
    return error_response(current.error());
  }
  return json_response(
      200, scale_of(c.resource, current.value().object, current.value().revision).dump());
}

http::Response Actions::update_scale(const Call& c) {
  const std::string type = patch_type(c.request);
  json body;
  if (c.info.verb == "update") {
    auto b = body_of(c, "autoscaling/v1", "Scale");
    if (!b.ok()) return error_response(b.error());
    body = std::move(b.value());
  } else {
    if (type == "application/apply-patch+yaml") {
      return error_response(api_error(
          Code::kUnsupportedMediaType,
          "server-side apply (application/apply-patch+yaml) is not implemented yet in k3c"));
    }
    if (type != "application/json-patch+json" && type != "application/merge-patch+json" &&
        type != "application/strategic-merge-patch+json") {
      return error_response(api_error(
          Code::kUnsupportedMediaType,
          "the body of the request was in an unknown format - accepted media types include: "
          "application/json-patch+json, application/merge-patch+json, "
          "application/strategic-merge-patch+json"));
    }
    auto b = decode_body(c.request, codecs());
    if (!b.ok()) return error_response(b.error());
    body = std::move(b.value());
  }
  const std::string key = c.resource.storage_key(c.info.namespace_, c.info.name);
  for (int attempt = 0; attempt < kScaleAttempts; ++attempt) {
    auto current = actions::read(cache_, key);
    if (!current.ok()) {
      if (current.error().code == Code::kNotFound) {
        return error_response(
            not_found(c.resource.group, c.resource.plural + "/scale", c.info.name));
      }
      return error_response(current.error());
    }
    json& parent = current.value().object;
    const int64_t revision = current.value().revision;
    json wanted = body;
    if (c.info.verb == "patch") {
      // A Scale has no lists, so a strategic merge patch merges as a JSON merge patch does.
      json old = scale_of(c.resource, parent, revision);
      if (type == "application/json-patch+json") {
        auto applied = api::apply_json_patch(old, body);
        if (!applied.is_ok()) return error_response(from_status(applied.status()));
        wanted = std::move(applied).value();
      } else {
        if (!body.is_object())
          return error_response(bad_request("a merge patch must be an object"));
        wanted = api::apply_merge_patch(old, body);
      }
    }
    if (!wanted.is_object()) return error_response(bad_request("a Scale must be a JSON object"));
    const json& meta = wanted.value("metadata", json::object());
    std::string name = meta.is_object() ? meta.value("name", "") : "";
    if (!name.empty() && name != c.info.name) {
      return error_response(bad_request("the name of the object (" + name +
                                        ") does not match the name on the URL (" + c.info.name +
                                        ")"));
    }
    const json& spec = wanted.value("spec", json::object());
    json replicas = spec.is_object() ? spec.value("replicas", json(0)) : json(0);
    if (!replicas.is_number_integer()) {
      return error_response(bad_request("spec.replicas must be an integer"));
    }
    if (replicas.get<int64_t>() < 0 || replicas.get<int64_t>() > INT32_MAX) {
      std::string msg = replicas.get<int64_t>() < 0 ? "must be greater than or equal to 0"
                                                    : "must be a 32-bit integer";
      return error_response(
          invalid("autoscaling", "Scale", c.info.name,
                  {{"FieldValueInvalid", "Invalid value: " + replicas.dump() + ": " + msg,
                    "spec.replicas"}}));
    }
    // The Scale's resourceVersion is the parent's: a precondition when the client set one.
    std::string precondition = rv_of(wanted);
    // Pinned by the client (kubectl scale --resource-version): a conflict is final.
    const bool pinned = !rv_of(body).empty();
    if (!precondition.empty() && precondition != std::to_string(revision)) {
      return error_response(object_modified(c.resource.group, c.resource.plural, c.info.name));
    }
    if (replicas.get<int64_t>() == spec_replicas(parent) && parent["spec"].contains("replicas")) {
      return json_response(200, scale_of(c.resource, parent, revision).dump());
    }
    parent["spec"]["replicas"] = replicas;
    parent["metadata"]["resourceVersion"] = std::to_string(revision);
    RequestInfo info = c.info;
    info.subresource.clear();
    info.verb = "update";
    http::Request put = actions::synthetic(c.request, "PUT", parent.dump());
    http::Response r = rest_.update({info, c.resource, put});
    // Lost a race with another writer: go again, unless the client pinned a version.
    if (r.status == 409 && !pinned) continue;
    if (r.status != 200) return r;
    json updated = json::parse(r.body, nullptr, false);
    if (!updated.is_object()) return r;
    int64_t new_revision = std::stoll(rv_of(updated).empty() ? "0" : rv_of(updated));
    return json_response(200, scale_of(c.resource, updated, new_revision).dump());
  }
  return error_response(object_modified(c.resource.group, c.resource.plural, c.info.name));
}

}  // namespace k3c::apiserver
