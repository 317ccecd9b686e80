// Tests for SchemaSet and SchemaDescriptions: the embedded schemas load and hold the facts
// kubectl's bodies need, and our words for kubectl explain; inconsistent schema or
// description files are refused with a message that names the place.
#include "api/schema.h"

#include <catch2/catch.hpp>
#include <set>

#include "api/registry.h"
#include "api/schema_descriptions.h"

using namespace k3c;
using namespace k3c::api;

namespace {

Status load_error(std::string_view yaml) {
  auto s = SchemaSet::from_yaml({{"t.yaml", yaml}});
  return s.status();
}

}  // namespace

TEST_CASE("schemas: the embedded set loads with every kind kubectl sends as protobuf") {
  auto set = SchemaSet::builtin();
  REQUIRE(set.is_ok());
  CHECK(set->type_count() > 150);
  for (const GroupVersionKind& gvk :
       std::vector<GroupVersionKind>{{"", "v1", "Namespace"},
                                     {"", "v1", "ConfigMap"},
                                     {"", "v1", "Secret"},
                                     {"", "v1", "ServiceAccount"},
                                     {"", "v1", "Service"},
                                     {"", "v1", "Pod"},
                                     {"apps", "v1", "Deployment"},
                                     {"batch", "v1", "Job"},
                                     {"batch", "v1", "CronJob"},
                                     {"authentication.k8s.io", "v1", "TokenRequest"},
                                     {"authentication.k8s.io", "v1", "SelfSubjectReview"},
                                     {"authorization.k8s.io", "v1", "SelfSubjectAccessReview"}}) {
    INFO(gvk.group << "/" << gvk.version << " " << gvk.kind);
    CHECK(set->kind(gvk) != nullptr);
  }
  CHECK(set->kind({"apps", "v1", "Namespace"}) == nullptr);

  const MessageType* meta = set->type("meta.v1.ObjectMeta");
  REQUIRE(meta != nullptr);
  CHECK(meta->field_by_number(3)->name == "namespace");
  CHECK(meta->field_by_number(8)->type.kind == FieldType::Kind::kTime);
  CHECK(meta->field_by_number(11)->type.kind == FieldType::Kind::kMap);
  CHECK(meta->field_by_number(15) == nullptr);
  CHECK(meta->field_by_name("ownerReferences")->patch_merge_key == "uid");

  const MessageType* container = set->type("core.v1.Container");
  REQUIRE(container != nullptr);
  const Field* ports = container->field_by_name("ports");
  CHECK(ports->type.kind == FieldType::Kind::kList);
  CHECK(ports->type.element->message == set->type("core.v1.ContainerPort"));
  CHECK(ports->list_type == "map");
  CHECK(ports->list_map_keys == std::vector<std::string>{"containerPort", "protocol"});
  CHECK(container->field_by_name("name")->keep_zero);    // json:"name" (no omitempty)
  CHECK(!container->field_by_name("image")->keep_zero);  // omitempty
  // Inline fields: a Volume's source, a Probe's handler.
  const Field* source = set->type("core.v1.Volume")->field_by_number(2);
  CHECK((source->inline_fields && source->name.empty()));
  CHECK(set->type("apps.v1.DeploymentSpec")->field_by_name("replicas")->keep_zero);  // *int32
  CHECK(set->type("core.v1.Secret")->field_by_name("data")->type.element->kind ==
        FieldType::Kind::kBytes);
}

TEST_CASE("schemas: loading errors name the file, type and field") {
  CHECK(load_error(
            "package: t.v1\ntypes:\n  A:\n    fields:\n    - {name: b, number: 1, type: Nope}\n")
            .message() == "schema t.yaml: t.v1.A.b: unknown type \"Nope\"");
  CHECK(load_error(
            "package: t.v1\ntypes:\n  A:\n    fields:\n    - {name: b, number: 1, type: string}\n"
            "    - {name: c, number: 1, type: string}\n")
            .message() == "schema t.yaml: t.v1.A.c: duplicate field number 1");
  CHECK(load_error(
            "package: t.v1\ntypes:\n  A:\n    fields:\n    - {name: b, number: 1, type: string}\n"
            "    - {name: b, number: 2, type: string}\n")
            .message() == "schema t.yaml: t.v1.A.b: duplicate field name");
  CHECK(load_error("package: t.v1\nkinds:\n  v1: [B]\ntypes:\n  A:\n    fields: []\n").message() ==
        "schema t.yaml: kind v1 B has no type B");
  CHECK(load_error(
            "package: t.v1\ntypes:\n  A:\n    fields:\n    - {name: b, number: 1, type: string, "
            "listType: map}\n")
            .message()
            .find("listType is for lists") != std::string::npos);
  CHECK(load_error(
            "package: t.v1\ntypes:\n  A:\n    fields:\n    - {name: b, number: 1, type: string, "
            "colour: red}\n")
            .message()
            .find("unknown field \"colour\"") != std::string::npos);
  CHECK(load_error(
            "package: t.v1\ntypes:\n  A:\n    fields:\n    - {name: b, number: x, type: string}\n")
            .code() == Code::kInvalid);
  CHECK(load_error("package: [").code() == Code::kInvalid);
  CHECK(load_error("package: t.v1\ntypes:\n  A:\n    fields:\n    - {number: 1, type: string}\n")
            .message()
            .find("either a name or inline") != std::string::npos);
}

TEST_CASE("schemas: types may refer forwards and across files") {
  auto set = SchemaSet::from_yaml(
      {{"a.yaml",
        "package: a.v1\nkinds:\n  a/v1: [A]\ntypes:\n  A:\n    fields:\n"
        "    - {name: b, number: 1, type: \"map[string][]b.v1.B\", default: {x: 1}}\n"},
       {"b.yaml",
        "package: b.v1\ntypes:\n  B:\n    fields:\n    - {name: c, number: 2, type: Time}\n"}});
  REQUIRE(set.is_ok());
  const Field& f = set->kind({"a", "v1", "A"})->fields.at(0);
  CHECK(f.type.kind == FieldType::Kind::kMap);
  CHECK(f.type.element->element->message == set->type("b.v1.B"));
  CHECK(f.default_value == nlohmann::json{{"x", 1}});
}

TEST_CASE("schemas: every kind the registry serves has a schema") {
  // So a kind added to resources.yaml without a schema (scripts/gen-schemas.py, KINDS) fails
  // here instead of answering protobuf bodies with 415.
  auto set = SchemaSet::builtin();
  REQUIRE(set.is_ok());
  auto registry = ResourceRegistry::builtin();
  REQUIRE(registry.is_ok());
  size_t checked = 0;
  for (const Resource& r : registry->resources()) {
    INFO(r.group_version() << " " << r.kind);
    CHECK(set->kind({r.group, r.version, r.kind}) != nullptr);
    for (const Subresource& sub : r.subresources) {
      const GroupVersionKind& k = sub.response_kind;
      INFO(r.plural << "/" << sub.name << ": " << k.group << "/" << k.version << " " << k.kind);
      CHECK(set->kind(k) != nullptr);
    }
    ++checked;
  }
  CHECK(checked > 50);
}

TEST_CASE("schemas: generated facts for newer kinds") {
  auto set = SchemaSet::builtin();
  REQUIRE(set.is_ok());
  // rbac: a binding's subjects and roleRef.
  const MessageType* binding = set->kind({"rbac.authorization.k8s.io", "v1", "RoleBinding"});
  REQUIRE(binding != nullptr);
  CHECK(binding->field_by_number(2)->name == "subjects");
  CHECK(binding->field_by_number(3)->type.message == set->type("rbac.v1.RoleRef"));
  CHECK(set->type("rbac.v1.RoleRef")->field_by_name("apiGroup")->keep_zero);  // no omitempty
  // A PDB's minAvailable is a *IntOrString; its selector replaces on patch.
  const MessageType* pdb_spec = set->type("policy.v1.PodDisruptionBudgetSpec");
  REQUIRE(pdb_spec != nullptr);
  CHECK(pdb_spec->field_by_name("minAvailable")->type.kind == FieldType::Kind::kIntOrString);
  CHECK(pdb_spec->field_by_name("minAvailable")->keep_zero);
  CHECK(pdb_spec->field_by_name("selector")->patch_strategy == "replace");
  // ResourceQuota: map[ResourceName]Quantity.
  const Field* hard = set->type("core.v1.ResourceQuotaSpec")->field_by_name("hard");
  CHECK(hard->type.kind == FieldType::Kind::kMap);
  CHECK(hard->type.element->kind == FieldType::Kind::kQuantity);
  // CSR: extra is map[string]ExtraValue, a list wrapper on the wire.
  const Field* extra =
      set->type("certificates.v1.CertificateSigningRequestSpec")->field_by_name("extra");
  CHECK(extra->type.spelling == "map[string][]string");
  // CRDs: JSONSchemaProps is recursive, JSON values are RawExtension, the Or* types oneOf.
  const MessageType* props = set->type("apiextensions.v1.JSONSchemaProps");
  REQUIRE(props != nullptr);
  CHECK(props->field_by_name("properties")->type.element->message == props);
  CHECK(props->field_by_name("default")->type.kind == FieldType::Kind::kRawExtension);
  CHECK(props->field_by_name("x-kubernetes-preserve-unknown-fields")->number == 38);
  CHECK(props->field_by_name("$ref")->keep_zero);  // *string
  CHECK(props->field_by_name("maximum")->type.kind == FieldType::Kind::kDouble);
  const MessageType* or_bool = props->field_by_name("additionalProperties")->type.message;
  REQUIRE(or_bool != nullptr);
  CHECK(or_bool->one_of);
  CHECK(!props->one_of);
  CHECK(set->type("apiextensions.v1.CustomResourceSubresourceStatus")->fields.empty());
  // meta/v1 DeleteOptions for DELETE bodies.
  CHECK(set->kind({"meta.k8s.io", "v1", "DeleteOptions"}) != nullptr);
}

TEST_CASE("schemas: oneOf is a type key and excludes inline fields") {
  auto set = SchemaSet::from_yaml(
      {{"t.yaml",
        "package: t.v1\ntypes:\n  A:\n    oneOf: true\n    fields:\n"
        "    - {name: b, number: 1, type: bool}\n    - {name: a, number: 2, type: A}\n"}});
  REQUIRE(set.is_ok());
  CHECK(set->type("t.v1.A")->one_of);
  CHECK(load_error("package: t.v1\ntypes:\n  A:\n    oneOf: true\n    fields:\n"
                   "    - {inline: true, number: 1, type: A}\n")
            .message() == "schema t.yaml: t.v1.A.#1: a oneOf type has no inline fields");
}

TEST_CASE("descriptions: our words attach to types and fields; mistakes name the place") {
  constexpr std::string_view kThing =
      "package: t.v1\nkinds: {v1: [Thing]}\ntypes:\n  Thing:\n    fields:\n"
      "    - {name: mode, number: 1, type: string}\n"
      "    - {name: size, number: 2, type: int32}\n";
  auto facts = SchemaSet::from_yaml({{"t.yaml", kThing}});
  REQUIRE(facts.is_ok());
  const MessageType& thing = *facts->type("t.v1.Thing");
  auto load = [&](std::string_view words) {
    return SchemaDescriptions::from_yaml(*facts, {{"descriptions/t.yaml", words}});
  };
  auto words = load(
      "package: t.v1\ntypes:\n  Thing:\n    description: A thing.\n"
      "    fields: {mode: How it runs., size: How big it is.}\n");
  REQUIRE(words.is_ok());
  CHECK(words->type(thing) == "A thing.");
  CHECK(words->field(thing, "size") == "How big it is.");
  CHECK(words->field(thing, "colour").empty());
  CHECK(load("package: t.v1\ntypes: {Thingy: {description: x}}").status().message() ==
        "schema descriptions descriptions/t.yaml: t.v1.Thingy: no such type");
  CHECK(load("package: t.v1\ntypes: {Thing: {fields: {colour: red}}}").status().message() ==
        "schema descriptions descriptions/t.yaml: t.v1.Thing.colour: no such field");
  CHECK(load("package: t.v1\ntypes: {Thing: {fields: {mode: ''}}}").status().message() ==
        "schema descriptions descriptions/t.yaml: t.v1.Thing.mode: expected a description");
  CHECK(load("package: t.v1\ntypes: {Thing: {fields: {mode: {default: a}}}}").status().message() ==
        "schema descriptions descriptions/t.yaml: t.v1.Thing.mode: expected a description");
  CHECK(load("package: t.v1\ntypes: {Thing: {descripton: x}}").status().code() == Code::kInvalid);
  CHECK(load("package: [").status().code() == Code::kInvalid);
  // Only words here: rules stay in rules/, and the rules and fact files take no words.
  CHECK_FALSE(load("package: t.v1\ncomplete: {v1: [Thing]}\ntypes: {}").is_ok());
  auto twice = SchemaDescriptions::from_yaml(
      *facts, {{"descriptions/a.yaml", "package: t.v1\ntypes: {Thing: {fields: {mode: a}}}"},
               {"descriptions/b.yaml", "package: t.v1\ntypes: {Thing: {fields: {mode: b}}}"}});
  CHECK(twice.status().message() ==
        "schema descriptions descriptions/b.yaml: t.v1.Thing.mode: described twice");
  CHECK_FALSE(SchemaSet::from_yaml(
                  {{"t.yaml",
                    "package: t.v1\ntypes:\n  Thing:\n    fields:\n"
                    "    - {name: mode, number: 1, type: string}\n"}},
                  {{"rules/t.yaml", "package: t.v1\ntypes: {Thing: {mode: {description: x}}}"}})
                  .is_ok());
  CHECK_FALSE(SchemaSet::from_yaml({{"t.yaml",
                                     "package: t.v1\ntypes:\n  Thing:\n"
                                     "    description: x\n    fields: []\n"}})
                  .is_ok());
}

TEST_CASE("descriptions: fieldsFrom lends another type's words to the fields it lacks") {
  auto set = SchemaSet::from_yaml({{"t.yaml",
                                    "package: t.v1\ntypes:\n"
                                    "  A:\n    fields:\n"
                                    "    - {name: mode, number: 1, type: string}\n"
                                    "    - {name: size, number: 2, type: int32}\n"
                                    "  B:\n    fields:\n"
                                    "    - {name: mode, number: 1, type: string}\n"
                                    "    - {name: size, number: 2, type: int32}\n"
                                    "    - {name: own, number: 3, type: string}\n"}});
  REQUIRE(set.is_ok());
  auto load = [&](const std::string& text) {
    return SchemaDescriptions::from_yaml(*set, {{"descriptions/t.yaml", text}});
  };
  auto words = load(
      "package: t.v1\ntypes:\n"
      "  A: {fields: {mode: the mode, size: the size}}\n"
      "  B: {fieldsFrom: A, fields: {size: B's own size}}\n");
  REQUIRE(words.is_ok());
  const MessageType& b = *set->type("t.v1.B");
  CHECK(words->field(b, "mode") == "the mode");
  CHECK(words->field(b, "size") == "B's own size");
  CHECK(words->field(b, "own").empty());
  CHECK(load("package: t.v1\ntypes:\n  B: {fieldsFrom: C}\n").status().message() ==
        "schema descriptions descriptions/t.yaml: t.v1.B: fieldsFrom must name a type of package "
        "t.v1");
  CHECK(load("package: t.v1\ntypes:\n  A: {fieldsFrom: B}\n  B: {fieldsFrom: A}\n")
            .status()
            .message()
            .find("fieldsFrom names a type that borrows too") != std::string::npos);
  CHECK(SchemaDescriptions::from_yaml(
            *set, {{"descriptions/t.yaml",
                    "package: t.v1\ntypes:\n  A: {fields: {mode: m, size: s}}\n"
                    "  B: {fieldsFrom: A}\n"},
                   {"descriptions/u.yaml", "package: t.v1\ntypes:\n  B: {fieldsFrom: A}\n"}})
            .status()
            .message() ==
        "schema descriptions descriptions/u.yaml: t.v1.B: fieldsFrom given twice");
  CHECK(load("package: t.v1\ntypes:\n  B: {fieldsFrom: A}\n").status().message() ==
        "schema descriptions descriptions/t.yaml: t.v1.B: fieldsFrom names a type without words");
}

TEST_CASE("descriptions: every served kind says what it is; a described type says every field") {
  auto set = SchemaSet::builtin();
  REQUIRE(set.is_ok());
  auto words = SchemaDescriptions::builtin(*set);
  REQUIRE(words.is_ok());
  auto registry = ResourceRegistry::builtin();
  REQUIRE(registry.is_ok());
  std::vector<GroupVersionKind> kinds;
  for (const Resource& r : registry->resources()) {
    kinds.push_back({r.group, r.version, r.kind});
    for (const Subresource& sub : r.subresources) kinds.push_back(sub.response_kind);
  }
  for (const GroupVersionKind& gvk : kinds) {
    INFO(gvk.group << "/" << gvk.version << " " << gvk.kind);
    const MessageType* type = set->kind(gvk);
    REQUIRE(type != nullptr);
    CHECK(!words->type(*type).empty());
  }
  // The types kubectl explain is most often asked about: words for the type and every field.
  for (const char* name : {"meta.v1.ObjectMeta",
                           "meta.v1.TypeMeta",
                           "meta.v1.LabelSelector",
                           "apps.v1.DeploymentSpec",
                           "apps.v1.DeploymentStrategy",
                           "apps.v1.RollingUpdateDeployment",
                           "core.v1.PodSpec",
                           "core.v1.Container",
                           "core.v1.Probe",
                           "core.v1.VolumeSource",
                           "core.v1.ServiceSpec",
                           "core.v1.ServicePort",
                           "batch.v1.JobSpec",
                           "batch.v1.CronJobSpec",
                           "core.v1.PodSecurityContext",
                           "core.v1.Affinity",
                           "core.v1.PodAffinityTerm",
                           "core.v1.TopologySpreadConstraint",
                           "core.v1.NodeStatus",
                           "core.v1.EphemeralContainerCommon",
                           "core.v1.PersistentVolumeClaimSpec",
                           "rbac.v1.PolicyRule",
                           "networking.v1.IngressSpec"}) {
    INFO(name);
    const MessageType* type = set->type(name);
    REQUIRE(type != nullptr);
    CHECK(!words->type(*type).empty());
    CHECK(!type->fields.empty());
    for (const Field& f : type->fields)
      CHECK((f.inline_fields || !words->field(*type, f.name).empty()));
  }
  // Any type reachable from a kind that has words for one field has words for all of them
  // (an inline field is described in the type it embeds).
  std::set<const MessageType*> seen;
  std::vector<const MessageType*> to_visit;
  for (const GroupVersionKind& gvk : kinds) to_visit.push_back(set->kind(gvk));
  size_t described = 0;
  while (!to_visit.empty()) {
    const MessageType* type = to_visit.back();
    to_visit.pop_back();
    if (!seen.insert(type).second) continue;
    bool any = false, all = true;
    for (const Field& f : type->fields) {
      const FieldType* t = &f.type;
      while (t->element) t = t->element.get();
      if (t->message) to_visit.push_back(t->message);
      if (f.inline_fields) continue;
      if (words->field(*type, f.name).empty()) {
        all = false;
      } else {
        any = true;
      }
    }
    INFO(type->name);
    if (any) CHECK(all);
    described += any;
  }
  CHECK(described > 100);
}
