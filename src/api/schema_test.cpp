// Tests for SchemaSet: the embedded schemas load and hold the facts kubectl's bodies need;
// inconsistent schema files are refused with a message that names the place.
#include "api/schema.h"

#include <catch2/catch.hpp>

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
