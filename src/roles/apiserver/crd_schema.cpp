// Pruning, defaulting and validation against a CRD's structural schema (see crd_schema.h).
#include "roles/apiserver/crd_schema.h"

#include <cmath>

#include "core/ids.h"
#include "core/regex.h"

namespace k3c::apiserver::crd {
namespace {

using nlohmann::json;

bool flag(const json& schema, const char* name) {
  auto it = schema.find(name);
  return it != schema.end() && it->is_boolean() && it->get<bool>();
}

const json* member(const json& schema, const char* name) {
  if (!schema.is_object()) return nullptr;
  auto it = schema.find(name);
  return it == schema.end() ? nullptr : &*it;
}

std::string child(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

std::string item(const std::string& path, size_t i) { return path + "[" + std::to_string(i) + "]"; }

// Fields every object at the root (or an embedded resource) has besides its schema.
bool is_type_meta(const std::string& key) {
  return key == "apiVersion" || key == "kind" || key == "metadata";
}

void prune_value(json& value, const json& schema, const std::string& path, bool keep_meta,
                 std::vector<std::string>& removed) {
  if (!schema.is_object()) return;
  if (value.is_array()) {
    if (const json* items = member(schema, "items"); items && items->is_object()) {
      for (size_t i = 0; i < value.size(); ++i)
        prune_value(value[i], *items, item(path, i), false, removed);
    }
    return;
  }
  if (!value.is_object()) return;
  const json* properties = member(schema, "properties");
  const json* additional = member(schema, "additionalProperties");
  const bool preserve = flag(schema, "x-kubernetes-preserve-unknown-fields");
  const bool embedded = keep_meta || flag(schema, "x-kubernetes-embedded-resource");
  for (auto it = value.begin(); it != value.end();) {
    const std::string key = it.key();
    if (embedded && is_type_meta(key)) {
      ++it;
      continue;
    }
    const json* sub = nullptr;
    if (properties && properties->is_object()) {
      if (auto p = properties->find(key); p != properties->end()) sub = &*p;
    }
    if (!sub && additional && additional->is_object()) sub = additional;
    if (sub) {
      prune_value(*it, *sub, child(path, key), false, removed);
      ++it;
    } else if (preserve || (additional && additional->is_boolean() && additional->get<bool>())) {
      ++it;
    } else {
      removed.push_back(child(path, key));
      it = value.erase(it);
    }
  }
}

void default_value(json& value, const json& schema) {
  if (!schema.is_object()) return;
  if (value.is_array()) {
    if (const json* items = member(schema, "items"); items && items->is_object()) {
      for (auto& v : value) default_value(v, *items);
    }
    return;
  }
  if (!value.is_object()) return;
  const json* properties = member(schema, "properties");
  if (properties && properties->is_object()) {
    for (auto& [key, sub] : properties->items()) {
      const json* def = member(sub, "default");
      if (!def) continue;
      auto it = value.find(key);
      if (it == value.end() || (it->is_null() && !flag(sub, "nullable"))) value[key] = *def;
    }
  }
  const json* additional = member(schema, "additionalProperties");
  for (auto& [key, v] : value.items()) {
    const json* sub = nullptr;
    if (properties && properties->is_object()) {
      if (auto p = properties->find(key); p != properties->end()) sub = &*p;
    }
    if (!sub && additional && additional->is_object()) sub = additional;
    if (sub) default_value(v, *sub);
  }
}

// The JSON type name upstream reports for a value.
std::string type_name(const json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "boolean";
  if (v.is_number_integer()) return "integer";
  if (v.is_number()) return std::floor(v.get<double>()) == v.get<double>() ? "integer" : "number";
  if (v.is_string()) return "string";
  if (v.is_array()) return "array";
  return "object";
}

bool has_type(const json& v, const std::string& type) {
  if (type == "object") return v.is_object();
  if (type == "array") return v.is_array();
  if (type == "string") return v.is_string();
  if (type == "boolean") return v.is_boolean();
  if (type == "number") return v.is_number();
  if (type == "integer") return type_name(v) == "integer";
  return true;  // unknown types are the CRD's problem, not the object's
}

// A value as Go's field errors print it: strings quoted, numbers and booleans bare.
std::string shown(const json& v) { return v.dump(); }

std::string number(const json& n) {
  if (n.is_number_float() && std::floor(n.get<double>()) == n.get<double>())
    return std::to_string(static_cast<long long>(n.get<double>()));
  return n.dump();
}

struct Validator {
  std::vector<StatusCause> causes;

  void invalid(const std::string& path, const json& value, const std::string& why) {
    causes.push_back({"FieldValueInvalid", "Invalid value: " + shown(value) + ": " + why, path});
  }
  void type_invalid(const std::string& path, const std::string& expected,
                    const std::string& actual) {
    causes.push_back({"FieldValueTypeInvalid",
                      "Invalid value: \"" + actual + "\": " + path + " in body must be of type " +
                          expected + ": \"" + actual + "\"",
                      path});
  }

  void check(const json& v, const json& s, const std::string& path, bool root) {
    if (!s.is_object()) return;
    const json* type = member(s, "type");
    const std::string t = type && type->is_string() ? type->get<std::string>() : "";
    if (v.is_null()) {
      if (!flag(s, "nullable") && !t.empty()) type_invalid(path, t, "null");
      return;
    }
    if (flag(s, "x-kubernetes-int-or-string")) {
      if (!v.is_string() && type_name(v) != "integer") {
        type_invalid(path, "integer", type_name(v));
        return;
      }
    } else if (!t.empty() && !has_type(v, t)) {
      type_invalid(path, t, type_name(v));
      return;
    }
    if (const json* e = member(s, "enum"); e && e->is_array()) check_enum(v, *e, path);
    if (v.is_number()) check_number(v, s, path);
    if (v.is_string()) check_string(v, s, path);
    if (v.is_array()) check_array(v, s, path);
    if (v.is_object()) check_object(v, s, path, root);
  }

  void check_enum(const json& v, const json& allowed, const std::string& path) {
    for (const auto& a : allowed) {
      if (a == v) return;
    }
    std::string list;
    for (const auto& a : allowed) {
      if (!list.empty()) list += ", ";
      list += a.dump();
    }
    causes.push_back({"FieldValueNotSupported",
                      "Unsupported value: " + shown(v) + ": supported values: " + list, path});
  }

  void check_number(const json& v, const json& s, const std::string& path) {
    const double x = v.get<double>();
    if (const json* min = member(s, "minimum"); min && min->is_number()) {
      bool exclusive = flag(s, "exclusiveMinimum");
      if (exclusive ? x <= min->get<double>() : x < min->get<double>()) {
        invalid(path, v,
                path + " in body should be greater than " + (exclusive ? "" : "or equal to ") +
                    number(*min));
      }
    }
    if (const json* max = member(s, "maximum"); max && max->is_number()) {
      bool exclusive = flag(s, "exclusiveMaximum");
      if (exclusive ? x >= max->get<double>() : x > max->get<double>()) {
        invalid(path, v,
                path + " in body should be less than " + (exclusive ? "" : "or equal to ") +
                    number(*max));
      }
    }
    if (const json* f = member(s, "format"); f && *f == "int32" && v.is_number_integer()) {
      if (x < -2147483648.0 || x > 2147483647.0) type_invalid(path, "int32", v.dump());
    }
  }

  void check_string(const json& v, const json& s, const std::string& path) {
    const std::string& text = v.get_ref<const std::string&>();
    size_t runes = 0;
    for (unsigned char c : text) runes += (c & 0xC0) != 0x80;
    if (const json* min = member(s, "minLength"); min && min->is_number_integer()) {
      if (runes < min->get<size_t>()) {
        invalid(path, v, path + " in body should be at least " + min->dump() + " chars long");
      }
    }
    if (const json* max = member(s, "maxLength"); max && max->is_number_integer()) {
      if (runes > max->get<size_t>()) {
        size_t n = max->get<size_t>();
        causes.push_back(
            {"FieldValueTooLong",
             "Too long: may not be more than " + std::to_string(n) + (n == 1 ? " byte" : " bytes"),
             path});
      }
    }
    if (const json* p = member(s, "pattern"); p && p->is_string()) {
      // Go's syntax in linear time, as upstream. A pattern that does not compile is left
      // unchecked here (upstream refuses it when the CRD is written).
      auto re = Regex::compile(p->get<std::string>());
      if (re.is_ok() && !re->search(text)) {
        invalid(path, v, path + " in body should match '" + p->get<std::string>() + "'");
      }
    }
    if (const json* f = member(s, "format"); f && *f == "date-time") {
      if (!parse_rfc3339(text)) {
        causes.push_back({"FieldValueTypeInvalid",
                          "Invalid value: " + shown(v) + ": " + path +
                              " in body must be of type date-time: " + shown(v),
                          path});
      }
    }
  }

  void check_array(const json& v, const json& s, const std::string& path) {
    if (const json* min = member(s, "minItems"); min && min->is_number_integer()) {
      if (v.size() < min->get<size_t>()) {
        invalid(path, json(v.size()),
                path + " in body should have at least " + min->dump() + " items");
      }
    }
    if (const json* max = member(s, "maxItems"); max && max->is_number_integer()) {
      if (v.size() > max->get<size_t>()) {
        causes.push_back({"FieldValueTooMany",
                          "Too many: " + std::to_string(v.size()) + ": must have at most " +
                              max->dump() + " items",
                          path});
      }
    }
    if (const json* items = member(s, "items")) {
      for (size_t i = 0; i < v.size(); ++i) check(v[i], *items, item(path, i), false);
    }
  }

  void check_object(const json& v, const json& s, const std::string& path, bool root) {
    if (const json* required = member(s, "required"); required && required->is_array()) {
      for (const auto& r : *required) {
        if (r.is_string() && !v.contains(r.get<std::string>())) {
          causes.push_back({"FieldValueRequired", "Required value", child(path, r)});
        }
      }
    }
    const json* properties = member(s, "properties");
    const json* additional = member(s, "additionalProperties");
    for (auto& [key, value] : v.items()) {
      if (root && is_type_meta(key)) continue;
      const json* sub = nullptr;
      if (properties && properties->is_object()) {
        if (auto p = properties->find(key); p != properties->end()) sub = &*p;
      }
      if (!sub && additional && additional->is_object()) sub = additional;
      if (sub) check(value, *sub, child(path, key), false);
    }
  }
};

}  // namespace

std::vector<std::string> prune(json& object, const json& schema) {
  std::vector<std::string> removed;
  prune_value(object, schema, "", /*keep_meta=*/true, removed);
  return removed;
}

void apply_defaults(json& object, const json& schema) { default_value(object, schema); }

std::vector<StatusCause> validate(const json& object, const json& schema) {
  Validator v;
  v.check(object, schema, "", /*root=*/true);
  return std::move(v.causes);
}

}  // namespace k3c::apiserver::crd
