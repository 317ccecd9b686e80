// A CRD's served versions as CustomResources, and the CRD's own defaults and validation
// (see custom_resource.h).
#include "roles/apiserver/custom_resource.h"

#include <algorithm>
#include <set>

#include "core/names.h"

namespace k3c::apiserver {
namespace {

using nlohmann::json;

std::string cr_text(const json& o, const char* key) {
  if (!o.is_object()) return "";
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : "";
}

const json& obj(const json& o, const char* key) {
  static const json empty = json::object();
  if (!o.is_object()) return empty;
  auto it = o.find(key);
  return it != o.end() && it->is_object() ? *it : empty;
}

const json& arr(const json& o, const char* key) {
  static const json empty = json::array();
  if (!o.is_object()) return empty;
  auto it = o.find(key);
  return it != o.end() && it->is_array() ? *it : empty;
}

std::vector<std::string> string_items(const json& list) {
  std::vector<std::string> out;
  for (const auto& v : list) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

api::Resource resource_of(const json& crd, const json& version, const json& accepted) {
  const json& spec = obj(crd, "spec");
  api::Resource r;
  r.group = cr_text(spec, "group");
  r.version = cr_text(version, "name");
  r.kind = cr_text(accepted, "kind");
  r.plural = cr_text(accepted, "plural");
  r.singular = cr_text(accepted, "singular");
  if (r.singular.empty()) r.singular = lower(r.kind);
  r.namespaced = cr_text(spec, "scope") != "Cluster";
  r.verbs = {"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"};
  r.short_names = string_items(arr(accepted, "shortNames"));
  r.categories = string_items(arr(accepted, "categories"));
  const json& sub = obj(version, "subresources");
  if (sub.contains("scale")) {
    r.subresources.push_back({"scale", {"autoscaling", "v1", "Scale"}, {"get", "patch", "update"}});
  }
  if (sub.contains("status")) {
    r.subresources.push_back({"status", r.gvk(), {"get", "patch", "update"}});
  }
  r.storage_prefix = api::custom_resource_storage_prefix(r.group, r.plural);
  return r;
}

// Upstream's human age of a timestamp cell ("<invalid>" when it does not parse).
json date_cell(const json& v, std::chrono::system_clock::time_point now) {
  if (!v.is_string()) return nullptr;
  json holder = {{"metadata", {{"creationTimestamp", v}}}};
  std::string age = age_of(holder, now);
  return age == "<unknown>" ? json("<invalid>") : json(age);
}

json cell(const std::string& type, const json& v, std::chrono::system_clock::time_point now) {
  if (v.is_null()) return nullptr;
  if (type == "integer")
    return v.is_number() ? json(static_cast<int64_t>(v.get<double>())) : json();
  if (type == "number") return v.is_number() ? json(v.get<double>()) : json();
  if (type == "boolean") return v.is_boolean() ? v : json();
  if (type == "date") return date_cell(v, now);
  return v.is_string() ? v : json(v.dump());  // string: other values printed as JSON
}

struct PathStep {
  enum Kind { kField, kIndex, kAll, kFilter } kind;
  std::string field;  // field name, or the filter's key
  size_t index = 0;
  json value;  // the filter's value
};

// Parses ".a.b", ".a[0].b", ".a[*].b", `.a[?(@.type=="Ready")].b` (with or without {}).
std::optional<std::vector<PathStep>> parse_path(std::string_view p) {
  if (p.size() >= 2 && p.front() == '{' && p.back() == '}') p = p.substr(1, p.size() - 2);
  std::vector<PathStep> steps;
  size_t i = 0;
  while (i < p.size()) {
    if (p[i] == '.') {
      ++i;
      std::string name;
      while (i < p.size() && p[i] != '.' && p[i] != '[') {
        if (p[i] == '\\' && i + 1 < p.size()) ++i;  // "\." is a dot inside a name
        name += p[i++];
      }
      if (name.empty()) return std::nullopt;
      steps.push_back({PathStep::kField, name, 0, json()});
    } else if (p[i] == '[') {
      size_t close = p.find(']', i);
      if (close == std::string_view::npos) return std::nullopt;
      std::string_view inner = p.substr(i + 1, close - i - 1);
      i = close + 1;
      if (inner == "*") {
        steps.push_back({PathStep::kAll, "", 0, json()});
      } else if (inner.rfind("?(@.", 0) == 0 && inner.back() == ')') {
        std::string_view cond = inner.substr(4, inner.size() - 5);
        size_t eq = cond.find("==");
        if (eq == std::string_view::npos) return std::nullopt;
        std::string rhs(cond.substr(eq + 2));
        if (rhs.size() >= 2 && (rhs.front() == '"' || rhs.front() == '\'')) {
          rhs = "\"" + rhs.substr(1, rhs.size() - 2) + "\"";
        }
        json value = json::parse(rhs, nullptr, false);
        if (value.is_discarded()) return std::nullopt;
        steps.push_back({PathStep::kFilter, std::string(cond.substr(0, eq)), 0, value});
      } else {
        size_t n = 0;
        for (char c : inner) {
          if (c < '0' || c > '9') return std::nullopt;
          n = n * 10 + static_cast<size_t>(c - '0');
        }
        if (inner.empty()) return std::nullopt;
        steps.push_back({PathStep::kIndex, "", n, json()});
      }
    } else {
      return std::nullopt;
    }
  }
  return steps;
}

}  // namespace

std::vector<json> eval_json_path(const json& object, std::string_view path) {
  auto steps = parse_path(path);
  if (!steps) return {};
  std::vector<const json*> at = {&object};
  for (const auto& s : *steps) {
    std::vector<const json*> next;
    for (const json* node : at) {
      if (s.kind == PathStep::kField && node->is_object()) {
        if (auto it = node->find(s.field); it != node->end()) next.push_back(&*it);
      } else if (s.kind == PathStep::kIndex && node->is_array() && s.index < node->size()) {
        next.push_back(&(*node)[s.index]);
      } else if (s.kind == PathStep::kAll && node->is_array()) {
        for (const auto& e : *node) next.push_back(&e);
      } else if (s.kind == PathStep::kFilter && node->is_array()) {
        for (const auto& e : *node) {
          if (e.is_object() && e.contains(s.field) && e[s.field] == s.value) next.push_back(&e);
        }
      }
    }
    at = std::move(next);
  }
  std::vector<json> out;
  for (const json* v : at) out.push_back(*v);
  return out;
}

std::shared_ptr<const Printer> printer_of_columns(const json& columns) {
  struct Spec {
    std::string type, path;
  };
  auto printer = std::make_shared<Printer>();
  printer->columns.push_back(
      {"Name", "string", "name",
       "Name must be unique within a namespace. Is required when creating resources, although "
       "some resources may allow a client to request the generation of an appropriate name "
       "automatically. Name is primarily intended for creation idempotence and configuration "
       "definition. Cannot be updated. More info: "
       "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names",
       0});
  std::vector<Spec> specs;
  for (const auto& c : columns) {
    if (!c.is_object()) continue;
    printer->columns.push_back({cr_text(c, "name"), cr_text(c, "type"), cr_text(c, "format"),
                                cr_text(c, "description"), c.value("priority", 0)});
    specs.push_back({cr_text(c, "type"), cr_text(c, "jsonPath")});
  }
  if (specs.empty()) {
    printer->columns.push_back(
        {"Age", "date", "",
         "CreationTimestamp is a timestamp representing the server time when this object was "
         "created.",
         0});
    specs.push_back({"date", ".metadata.creationTimestamp"});
  }
  printer->cells = [specs](const json& o, std::chrono::system_clock::time_point now) {
    std::vector<json> cells = {cr_text(obj(o, "metadata"), "name")};
    for (const auto& s : specs) {
      auto values = eval_json_path(o, s.path);
      // Upstream shows the first match of a path (its printer supports simple paths only).
      cells.push_back(values.empty() ? json() : cell(s.type, values.front(), now));
    }
    return cells;
  };
  return printer;
}

std::vector<std::shared_ptr<const CustomResource>> custom_resources_of(const json& crd) {
  std::vector<std::shared_ptr<const CustomResource>> out;
  const json& accepted = obj(obj(crd, "status"), "acceptedNames");
  if (cr_text(accepted, "plural").empty() || cr_text(accepted, "kind").empty()) return out;
  const json& meta = obj(crd, "metadata");
  for (const auto& v : arr(obj(crd, "spec"), "versions")) {
    if (!v.is_object() || !v.value("served", false) || cr_text(v, "name").empty()) continue;
    auto cr = std::make_shared<CustomResource>();
    cr->crd_name = cr_text(meta, "name");
    cr->resource = resource_of(crd, v, accepted);
    cr->list_kind = cr_text(accepted, "listKind");
    if (cr->list_kind.empty()) cr->list_kind = cr->resource.kind + "List";
    const json& schema = obj(obj(v, "schema"), "openAPIV3Schema");
    if (!schema.empty()) cr->schema = schema;
    cr->printer = printer_of_columns(arr(v, "additionalPrinterColumns"));
    const json& sub = obj(v, "subresources");
    cr->status = sub.contains("status");
    if (sub.contains("scale")) {
      const json& s = obj(sub, "scale");
      cr->scale = ScalePaths{cr_text(s, "specReplicasPath"), cr_text(s, "statusReplicasPath"),
                             cr_text(s, "labelSelectorPath")};
    }
    cr->terminating = meta.contains("deletionTimestamp");
    out.push_back(std::move(cr));
  }
  return out;
}

void default_crd(json& crd) {
  if (!crd.is_object() || !crd["spec"].is_object()) return;
  json& spec = crd["spec"];
  if (!spec["names"].is_object()) return;
  json& names = spec["names"];
  std::string kind = cr_text(names, "kind");
  if (!kind.empty() && cr_text(names, "singular").empty()) names["singular"] = lower(kind);
  if (!kind.empty() && cr_text(names, "listKind").empty()) names["listKind"] = kind + "List";
  if (!spec.contains("conversion")) spec["conversion"] = {{"strategy", "None"}};
}

std::vector<StatusCause> validate_crd(const json& crd) {
  std::vector<StatusCause> causes;
  auto required = [&](std::string field, std::string detail = "") {
    causes.push_back({"FieldValueRequired",
                      detail.empty() ? "Required value" : "Required value: " + detail,
                      std::move(field)});
  };
  auto invalid = [&](std::string field, const json& value, std::string why) {
    causes.push_back(
        {"FieldValueInvalid", "Invalid value: " + value.dump() + ": " + why, std::move(field)});
  };
  const json& spec = obj(crd, "spec");
  const json& names = obj(spec, "names");
  const std::string group = cr_text(spec, "group"), plural = cr_text(names, "plural");
  const std::string name = cr_text(obj(crd, "metadata"), "name");
  if (name != plural + "." + group) {
    invalid("metadata.name", name, "must be spec.names.plural+\".\"+spec.group");
  }
  if (group.empty()) {
    required("spec.group");
  } else if (group.find('.') == std::string::npos) {
    invalid("spec.group", group, "should be a domain with at least one dot");
  }
  const std::string scope = cr_text(spec, "scope");
  if (scope.empty()) {
    required("spec.scope");
  } else if (scope != "Cluster" && scope != "Namespaced") {
    causes.push_back(
        {"FieldValueNotSupported",
         "Unsupported value: \"" + scope + "\": supported values: \"Cluster\", \"Namespaced\"",
         "spec.scope"});
  }
  const json& versions = arr(spec, "versions");
  std::set<std::string> seen;
  int storage = 0;
  for (size_t i = 0; i < versions.size(); ++i) {
    const json& v = versions[i];
    const std::string at = "spec.versions[" + std::to_string(i) + "]";
    const std::string vname = cr_text(v, "name");
    if (Status s = names::validate_dns1123_label(vname); !s.is_ok()) {
      invalid(at + ".name", vname, s.message());
    }
    if (!seen.insert(vname).second)
      invalid("spec.versions", vname, "must contain unique version names");
    if (v.is_object() && v.value("storage", false)) ++storage;
    const json& schema = obj(obj(v, "schema"), "openAPIV3Schema");
    const std::string schema_at = at + ".schema.openAPIV3Schema";
    if (schema.empty()) {
      if (v.is_object() && v.value("served", false))
        required(schema_at, "because otherwise all fields are pruned");
    } else if (cr_text(schema, "type").empty()) {
      required(schema_at + ".type", "must not be empty at the root");
    } else if (cr_text(schema, "type") != "object") {
      invalid(schema_at + ".type", cr_text(schema, "type"), "must be object at the root");
    }
    const json& scale = obj(obj(v, "subresources"), "scale");
    if (obj(v, "subresources").contains("scale")) {
      std::string spec_path = cr_text(scale, "specReplicasPath");
      std::string status_path = cr_text(scale, "statusReplicasPath");
      const std::string scale_at = at + ".subresources.scale.";
      if (spec_path.rfind(".spec.", 0) != 0)
        invalid(scale_at + "specReplicasPath", spec_path, "should be a json path under .spec");
      if (status_path.rfind(".status.", 0) != 0)
        invalid(scale_at + "statusReplicasPath", status_path,
                "should be a json path under .status");
    }
  }
  if (versions.empty()) {
    required("spec.versions", "must have at least one version");
  } else if (storage != 1) {
    invalid("spec.versions", versions, "must have exactly one version marked as storage version");
  }
  if (plural.empty()) {
    required("spec.names.plural");
  } else if (Status s = names::validate_dns1123_label(plural); !s.is_ok()) {
    invalid("spec.names.plural", plural, s.message());
  }
  if (cr_text(names, "singular").empty() && !cr_text(names, "kind").empty())
    required("spec.names.singular");
  if (cr_text(names, "kind").empty()) required("spec.names.kind");
  return causes;
}

}  // namespace k3c::apiserver
