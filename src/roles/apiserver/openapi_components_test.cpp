// The generated /openapi/v3 component schemas: what `kubectl explain` walks.
#include "roles/apiserver/openapi_components.h"

#include <catch2/catch.hpp>
#include <functional>

#include "api/schema.h"

namespace k3c::apiserver {
namespace {

using nlohmann::json;

const api::SchemaSet& builtin() {
  static const api::SchemaSet set = api::SchemaSet::builtin().value();
  return set;
}

// Every "$ref" in a document, wherever it sits.
void each_ref(const json& j, const std::function<void(const std::string&)>& visit) {
  if (j.is_object()) {
    for (auto& [k, v] : j.items()) {
      if (k == "$ref" && v.is_string()) visit(v.get<std::string>());
      each_ref(v, visit);
    }
  } else if (j.is_array()) {
    for (const auto& v : j) each_ref(v, visit);
  }
}

TEST_CASE("definition names follow upstream's packages") {
  CHECK(openapi_definition_name("core.v1.Pod") == "io.k8s.api.core.v1.Pod");
  CHECK(openapi_definition_name("meta.v1.ObjectMeta") ==
        "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
  CHECK(openapi_definition_name("apiextensions.v1.JSONSchemaProps") ==
        "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps");
}

TEST_CASE("a kind's schema reaches every type it uses, and every reference resolves") {
  json c = openapi_components(builtin(), {{"apps", "v1", "Deployment"}}, nullptr);
  const json& d = c.at("io.k8s.api.apps.v1.Deployment");
  CHECK(d.at("x-kubernetes-group-version-kind") ==
        json::parse(R"([{"group":"apps","version":"v1","kind":"Deployment"}])"));
  CHECK(d.at("properties").contains("apiVersion"));
  CHECK(d.at("properties").at("spec").at("allOf")[0].at("$ref") ==
        "#/components/schemas/io.k8s.api.apps.v1.DeploymentSpec");
  const json& containers = c.at("io.k8s.api.core.v1.PodSpec").at("properties").at("containers");
  CHECK(containers.at("type") == "array");
  CHECK(containers.at("x-kubernetes-patch-merge-key") == "name");
  CHECK(containers.at("x-kubernetes-patch-strategy") == "merge");
  CHECK(c.at("io.k8s.api.core.v1.Container").at("properties").at("image").at("type") == "string");
  CHECK(c.contains("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"));
  CHECK(c.contains("io.k8s.apimachinery.pkg.util.intstr.IntOrString"));
  size_t refs = 0;
  each_ref(c, [&](const std::string& r) {
    ++refs;
    const std::string prefix = "#/components/schemas/";
    REQUIRE(r.rfind(prefix, 0) == 0);
    CHECK(c.contains(r.substr(prefix.size())));
  });
  CHECK(refs > 50);
}

TEST_CASE("inline fields appear in the parent object") {
  json c = openapi_components(builtin(), {{"", "v1", "Pod"}}, nullptr);
  // Volume embeds VolumeSource: its members are Volume's own properties in JSON.
  const json& volume = c.at("io.k8s.api.core.v1.Volume").at("properties");
  CHECK(volume.contains("name"));
  CHECK(volume.contains("configMap"));
  CHECK(volume.contains("emptyDir"));
}

TEST_CASE("our words become the descriptions of types and properties") {
  auto words = api::SchemaDescriptions::builtin(builtin());
  REQUIRE(words.is_ok());
  json c =
      openapi_components(builtin(), {{"apps", "v1", "Deployment"}, {"", "v1", "Pod"}}, &*words);
  const api::MessageType& strategy = *builtin().type("apps.v1.DeploymentStrategy");
  const json& deployment = c.at("io.k8s.api.apps.v1.Deployment");
  CHECK(deployment.at("description") == words->type(*builtin().type("apps.v1.Deployment")));
  CHECK(c.at("io.k8s.api.apps.v1.DeploymentStrategy").at("description") == words->type(strategy));
  CHECK(
      c.at("io.k8s.api.apps.v1.DeploymentStrategy").at("properties").at("type").at("description") ==
      words->field(strategy, "type"));
  // apiVersion and kind come from meta.v1.TypeMeta's words.
  CHECK(deployment.at("properties").at("apiVersion").at("description") ==
        words->field(*builtin().type("meta.v1.TypeMeta"), "apiVersion"));
  // An inline field's members carry the words of the type that declares them.
  CHECK(c.at("io.k8s.api.core.v1.Volume").at("properties").at("configMap").at("description") ==
        words->field(*builtin().type("core.v1.VolumeSource"), "configMap"));
  CHECK(c.at("io.k8s.api.core.v1.ConfigMapKeySelector")
            .at("properties")
            .at("name")
            .at("description") ==
        words->field(*builtin().type("core.v1.LocalObjectReference"), "name"));
  CHECK_FALSE(words->type(strategy).empty());
  // Without words there are none.
  json bare = openapi_components(builtin(), {{"apps", "v1", "Deployment"}}, nullptr);
  CHECK_FALSE(bare.at("io.k8s.api.apps.v1.Deployment").contains("description"));
}

TEST_CASE("kinds without a schema description are left out") {
  json c = openapi_components(builtin(), {{"example.com", "v1", "Widget"}}, nullptr);
  CHECK(c.empty());
}

}  // namespace
}  // namespace k3c::apiserver
