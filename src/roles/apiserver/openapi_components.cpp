// OpenAPI v3 component schemas from the schema descriptions (see openapi_components.h).
#include "roles/apiserver/openapi_components.h"

#include <map>
#include <set>

namespace k3c::apiserver {
namespace {

using nlohmann::json;
using Kind = api::FieldType::Kind;

constexpr std::string_view kMetaPrefix = "io.k8s.apimachinery.pkg.apis.meta.v1.";

std::string schema_ref(const std::string& definition) {
  return "#/components/schemas/" + definition;
}

// The special types are shared definitions upstream; their shapes are facts of the API.
struct SpecialType {
  Kind kind;
  const char* definition;
  const char* schema;  // JSON
};
constexpr SpecialType kSpecialTypes[] = {
    {Kind::kTime, "io.k8s.apimachinery.pkg.apis.meta.v1.Time",
     R"({"type":"string","format":"date-time"})"},
    {Kind::kMicroTime, "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime",
     R"({"type":"string","format":"date-time"})"},
    {Kind::kQuantity, "io.k8s.apimachinery.pkg.api.resource.Quantity",
     R"({"oneOf":[{"type":"string"},{"type":"number"}]})"},
    // v3 gives IntOrString no "type" (only v2 calls it a string): kubectl explain then
    // names the type, "<IntOrString>", as it does for Quantity.
    {Kind::kIntOrString, "io.k8s.apimachinery.pkg.util.intstr.IntOrString",
     R"({"oneOf":[{"type":"integer"},{"type":"string"}],"format":"int-or-string"})"},
    {Kind::kRawExtension, "io.k8s.apimachinery.pkg.runtime.RawExtension",
     R"({"type":"object","x-kubernetes-preserve-unknown-fields":true})"},
};

const SpecialType* special(Kind kind) {
  for (const auto& s : kSpecialTypes) {
    if (s.kind == kind) return &s;
  }
  return nullptr;
}

// Collects the definitions a set of kinds reaches.
class Generator {
 public:
  // `type_meta`: meta.v1.TypeMeta, whose fields (apiVersion, kind) every kind carries in
  // JSON though its protobuf message does not; nullptr leaves them out. `words`: the
  // descriptions, or nullptr.
  Generator(const api::MessageType* type_meta, const api::SchemaDescriptions* words)
      : type_meta_(type_meta), words_(words) {}

  json& definitions() { return definitions_; }

  void add_kind(const api::MessageType& type, const api::GroupVersionKind& gvk) {
    json& def = add_message(type);
    if (type_meta_) {
      json required = json::array();  // stays empty: TypeMeta has no required fields
      for (const auto& field : type_meta_->fields) add_property(def, *type_meta_, field, required);
    }
    def["x-kubernetes-group-version-kind"].push_back(
        {{"group", gvk.group}, {"version", gvk.version}, {"kind", gvk.kind}});
  }

 private:
  json& add_message(const api::MessageType& type) {
    const std::string name = openapi_definition_name(type.name);
    if (definitions_.contains(name)) return definitions_[name];
    json& def = definitions_[name];  // placed before recursing: types refer to themselves
    def = {{"type", "object"}, {"properties", json::object()}};
    if (words_ && !words_->type(type).empty()) def["description"] = std::string(words_->type(type));
    json required = json::array();
    for (const auto& field : type.fields) {
      if (field.inline_fields && field.type.message) {
        // Embedded fields sit in the parent object in JSON; describe them there.
        for (const auto& inner : field.type.message->fields) {
          add_property(def, *field.type.message, inner, required);
        }
        continue;
      }
      add_property(def, type, field, required);
    }
    if (!required.empty()) def["required"] = std::move(required);
    return definitions_[name];
  }

  // `owner`: the type that declares `field` (an embedded type for inline fields).
  void add_property(json& def, const api::MessageType& owner, const api::Field& field,
                    json& required) {
    if (field.name.empty()) return;
    json property = schema_of(field.type);
    if (words_) {
      std::string_view text = words_->field(owner, field.name);
      if (!text.empty()) property["description"] = std::string(text);
    }
    if (!field.default_value.is_null()) property["default"] = field.default_value;
    if (!field.enum_values.empty()) property["enum"] = field.enum_values;
    if (!field.list_type.empty()) property["x-kubernetes-list-type"] = field.list_type;
    if (!field.list_map_keys.empty()) property["x-kubernetes-list-map-keys"] = field.list_map_keys;
    if (!field.patch_merge_key.empty()) {
      property["x-kubernetes-patch-merge-key"] = field.patch_merge_key;
    }
    if (!field.patch_strategy.empty()) {
      property["x-kubernetes-patch-strategy"] = field.patch_strategy;
    }
    if (field.required) required.push_back(field.name);
    def["properties"][field.name] = std::move(property);
  }

  json schema_of(const api::FieldType& type) {
    switch (type.kind) {
      case Kind::kString:
      case Kind::kDuration:
        return {{"type", "string"}};
      case Kind::kInt32:
        return {{"type", "integer"}, {"format", "int32"}};
      case Kind::kInt64:
        return {{"type", "integer"}, {"format", "int64"}};
      case Kind::kBool:
        return {{"type", "boolean"}};
      case Kind::kDouble:
        return {{"type", "number"}, {"format", "double"}};
      case Kind::kBytes:
        return {{"type", "string"}, {"format", "byte"}};
      case Kind::kList:
        return {{"type", "array"}, {"items", schema_of(*type.element)}};
      case Kind::kMap:
        return {{"type", "object"}, {"additionalProperties", schema_of(*type.element)}};
      case Kind::kMessage:
        // A schema-or-bool/list value (JSONSchemaPropsOrBool, ...) is any JSON value.
        if (type.message->one_of) return {{"x-kubernetes-preserve-unknown-fields", true}};
        add_message(*type.message);
        return {
            {"allOf",
             json::array({{{"$ref", schema_ref(openapi_definition_name(type.message->name))}}})}};
      default:
        break;
    }
    const SpecialType* s = special(type.kind);
    if (!definitions_.contains(s->definition)) definitions_[s->definition] = json::parse(s->schema);
    return {{"allOf", json::array({{{"$ref", schema_ref(s->definition)}}})}};
  }

  const api::MessageType* type_meta_;
  const api::SchemaDescriptions* words_;
  json definitions_ = json::object();
};

}  // namespace

std::string openapi_definition_name(const std::string& qualified_type) {
  if (qualified_type.rfind("meta.v1.", 0) == 0) {
    return std::string(kMetaPrefix) + qualified_type.substr(8);
  }
  if (qualified_type.rfind("apiextensions.", 0) == 0) {
    return "io.k8s.apiextensions-apiserver.pkg.apis." + qualified_type;
  }
  return "io.k8s.api." + qualified_type;
}

json openapi_components(const api::SchemaSet& schemas,
                        const std::vector<api::GroupVersionKind>& kinds,
                        const api::SchemaDescriptions* words) {
  Generator generator(schemas.type("meta.v1.TypeMeta"), words);
  std::set<std::string> seen;  // a kind served by several resources is described once
  for (const auto& gvk : kinds) {
    if (!seen.insert(gvk.group + "/" + gvk.version + "/" + gvk.kind).second) continue;
    if (const api::MessageType* type = schemas.kind(gvk)) generator.add_kind(*type, gvk);
  }
  return std::move(generator.definitions());
}

}  // namespace k3c::apiserver
