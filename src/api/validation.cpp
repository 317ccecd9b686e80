// The schema-driven defaulter and validator (see validation.h).
#include "api/validation.h"

#include "core/names.h"

namespace k3c::api {
namespace {

using nlohmann::json;
using Kind = FieldType::Kind;

const json* member(const json& object, const std::string& name) {
  auto it = object.find(name);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

// Whether a required value counts as missing: absent, null, or the zero value of a plain
// field (upstream's Go fields cannot tell "" or 0 from unset).
bool missing(const json* v) {
  if (!v) return true;
  if (v->is_string()) return v->get_ref<const std::string&>().empty();
  if (v->is_array()) return v->empty();
  if (v->is_number_integer()) return *v == 0;
  return false;
}

// Each element of a list or map value that holds objects of a message type, with its path.
template <typename Visit>
void for_each_message(const FieldType& t, const json& value, const std::string& path, Visit visit) {
  if (t.kind == Kind::kMessage && value.is_object()) {
    visit(value, *t.message, path, nullptr);
  } else if (t.kind == Kind::kList && t.element && value.is_array()) {
    for (size_t i = 0; i < value.size(); ++i) {
      if (t.element->kind == Kind::kMessage && value[i].is_object())
        visit(value[i], *t.element->message, index(path, i), &i);
    }
  } else if (t.kind == Kind::kMap && t.element && value.is_object()) {
    for (auto& [k, v] : value.items()) {
      if (t.element->kind == Kind::kMessage && v.is_object())
        visit(v, *t.element->message, key(path, k), nullptr);
    }
  }
}

void check_format(const Field& f, const json& v, const std::string& path, FieldErrors& out) {
  if (f.format.empty() || !v.is_string()) return;
  const std::string& s = v.get_ref<const std::string&>();
  std::vector<std::string> problems;
  if (f.format == "dns1123-label") problems = names::dns1123_label_problems(s);
  if (f.format == "dns1123-subdomain") problems = names::dns1123_subdomain_problems(s);
  if (f.format == "qualified-name") problems = names::qualified_name_problems(s);
  if (f.format == "label-value") problems = names::label_value_problems(s);
  for (auto& p : problems) out.push_back(invalid(path, v, std::move(p)));
}

void check_field(const Field& f, const json* v, const json* old_v, const std::string& path,
                 FieldErrors& out) {
  if (f.required && missing(v)) {
    out.push_back(required(path));
    return;
  }
  if (!v) return;
  if (!f.enum_values.empty() && v->is_string() && !v->get_ref<const std::string&>().empty() &&
      std::find(f.enum_values.begin(), f.enum_values.end(), v->get<std::string>()) ==
          f.enum_values.end()) {
    out.push_back(not_supported(path, *v, f.enum_values));
  }
  check_format(f, *v, path, out);
  if ((f.minimum || f.maximum) && v->is_number()) {
    double n = v->get<double>();
    if ((f.minimum && n < static_cast<double>(*f.minimum)) ||
        (f.maximum && n > static_cast<double>(*f.maximum))) {
      out.push_back(invalid(
          path, *v,
          range_detail(f.minimum ? &*f.minimum : nullptr, f.maximum ? &*f.maximum : nullptr)));
    }
  }
  if (f.immutable && old_v && *v != *old_v) {
    out.push_back(invalid(path, *v, "field is immutable"));
  }
}

void validate_object(const json& object, const json* old, const MessageType& type,
                     const std::string& path, FieldErrors& out);

void validate_fields(const json& object, const json* old, const MessageType& type,
                     const std::string& path, FieldErrors& out) {
  for (const Field& f : type.fields) {
    if (f.inline_fields) {
      validate_fields(object, old, *f.type.message, path, out);
      continue;
    }
    const std::string p = child(path, f.name);
    const json* v = member(object, f.name);
    const json* old_v = old && old->is_object() ? member(*old, f.name) : nullptr;
    // An immutable field that was set may not be cleared either.
    if (f.immutable && old && !v && old_v) {
      out.push_back(invalid(p, nullptr, "field is immutable"));
    }
    check_field(f, v, old_v, p, out);
  }
  if (const TypeHooks* h = hooks_for(type.name); h && h->validate) {
    for (auto& e : h->validate(object, old, path)) out.push_back(std::move(e));
  }
  for (const Field& f : type.fields) {
    if (f.inline_fields || f.type.is_scalar()) continue;
    const json* v = member(object, f.name);
    if (!v) continue;
    const json* old_v = old && old->is_object() ? member(*old, f.name) : nullptr;
    for_each_message(
        f.type, *v, child(path, f.name),
        [&](const json& item, const MessageType& t, const std::string& p, const size_t* i) {
          const json* old_item = old_v;
          if (i) {
            old_item = old_v && old_v->is_array() && *i < old_v->size() ? &(*old_v)[*i] : nullptr;
          } else if (f.type.kind == Kind::kMap) {
            old_item = nullptr;  // map values: no per-key history kept
          }
          validate_object(item, old_item, t, p, out);
        });
  }
}

void validate_object(const json& object, const json* old, const MessageType& type,
                     const std::string& path, FieldErrors& out) {
  validate_fields(object, old, type, path, out);
}

void default_object(json& object, const MessageType& type) {
  if (const TypeHooks* h = hooks_for(type.name); h && h->defaults) h->defaults(object);
  for (const Field& f : type.fields) {
    if (f.inline_fields) {
      default_object(object, *f.type.message);
      continue;
    }
    auto it = object.find(f.name);
    if ((it == object.end() || it->is_null()) && !f.default_value.is_null()) {
      object[f.name] = f.default_value;
    }
  }
  for (const Field& f : type.fields) {
    if (f.inline_fields || f.type.is_scalar()) continue;
    auto it = object.find(f.name);
    if (it == object.end()) continue;
    json& v = *it;
    if (f.type.kind == Kind::kMessage && v.is_object()) {
      default_object(v, *f.type.message);
    } else if ((f.type.kind == Kind::kList && v.is_array()) ||
               (f.type.kind == Kind::kMap && v.is_object())) {
      if (!f.type.element || f.type.element->kind != Kind::kMessage) continue;
      for (auto& item : v) {
        if (item.is_object()) default_object(item, *f.type.element->message);
      }
    }
  }
}

}  // namespace

void apply_defaults(json& object, const MessageType& type) {
  if (object.is_object()) default_object(object, type);
}

FieldErrors validate(const json& object, const json* old, const MessageType& type) {
  FieldErrors out;
  if (object.is_object()) validate_object(object, old, type, "", out);
  return out;
}

const Field* find_field(const MessageType& type, std::string_view json_name) {
  for (const Field& f : type.fields) {
    if (f.inline_fields) {
      if (const Field* inner = find_field(*f.type.message, json_name)) return inner;
    } else if (f.name == json_name) {
      return &f;
    }
  }
  return nullptr;
}

}  // namespace k3c::api
