// Tests for fieldValidation (Strict, Warn, Ignore) on decoded bodies, the Warning headers,
// and the 422 built from field errors.
#include "roles/apiserver/admission.h"

#include <catch2/catch.hpp>

using namespace k3c;
using namespace k3c::apiserver;

namespace {

http::Request admission_request(std::string content_type, std::string body,
                                std::string validation = "") {
  http::Request r;
  r.method = "POST";
  r.target = "/apis/apps/v1/namespaces/default/deployments";
  r.headers = {{"content-type", std::move(content_type)}};
  if (!validation.empty()) r.query = {{"fieldValidation", validation}};
  r.body = std::move(body);
  return r;
}

constexpr const char* kBody = R"({"apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "web", "name": "web"}, "spec": {"replica": 2}})";

struct AdmissionFixture {
  api::SchemaSet schemas = api::SchemaSet::builtin().value();
  api::ResourceRegistry registry = api::ResourceRegistry::builtin().value();
  const api::Resource& deployments = *registry.find("apps", "v1", "deployments");
  BodyCodecs codecs{schemas, registry};
};

}  // namespace

TEST_CASE("fieldValidation: Strict refuses, Warn warns and drops, Ignore drops") {
  AdmissionFixture f;
  auto strict = decode_object(admission_request("application/json", kBody), f.codecs, f.deployments,
                              FieldValidation::kStrict);
  REQUIRE_FALSE(strict.ok());
  CHECK(strict.error().code == Code::kBadRequest);
  CHECK(strict.error().message ==
        "Deployment in version \"v1\" cannot be handled as a Deployment: strict decoding error: "
        "duplicate field \"metadata.name\", unknown field \"spec.replica\"");

  auto warn = decode_object(admission_request("application/json", kBody), f.codecs, f.deployments,
                            FieldValidation::kWarn);
  REQUIRE(warn.ok());
  CHECK(warn.value().warnings == std::vector<std::string>{R"(duplicate field "metadata.name")",
                                                          R"(unknown field "spec.replica")"});
  CHECK_FALSE(warn.value().object["spec"].contains("replica"));
  http::Response r;
  add_warnings(r, warn.value().warnings);
  CHECK(r.headers[1] == std::pair<std::string, std::string>{
                            "Warning", R"(299 - "unknown field \"spec.replica\"")"});

  auto ignore = decode_object(admission_request("application/json", kBody), f.codecs, f.deployments,
                              FieldValidation::kIgnore);
  REQUIRE(ignore.ok());
  CHECK(ignore.value().warnings.empty());
  CHECK_FALSE(ignore.value().object["spec"].contains("replica"));

  // YAML bodies too (no duplicates there: the YAML parser keeps one).
  auto yaml = decode_object(
      admission_request("application/yaml",
                        "apiVersion: apps/v1\nkind: Deployment\nspec: {replica: 2}\n"),
      f.codecs, f.deployments, FieldValidation::kStrict);
  REQUIRE_FALSE(yaml.ok());
  CHECK(yaml.error().message.ends_with("strict decoding error: unknown field \"spec.replica\""));

  // Wrong JSON types are 400 whatever the directive; malformed JSON keeps its message.
  auto wrong =
      decode_object(admission_request("application/json", R"({"spec": {"replicas": "two"}})"),
                    f.codecs, f.deployments, FieldValidation::kIgnore);
  REQUIRE_FALSE(wrong.ok());
  CHECK(wrong.error().message ==
        "Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal "
        "string into Go struct field DeploymentSpec.spec.replicas of type int32");
  auto broken = decode_object(admission_request("application/json", "{\"spec\": "), f.codecs,
                              f.deployments, FieldValidation::kStrict);
  REQUIRE_FALSE(broken.ok());
  CHECK(broken.error().code == Code::kBadRequest);
}

TEST_CASE("fieldValidation values") {
  CHECK(write_options(admission_request("", "")).value() == FieldValidation::kWarn);
  CHECK(write_options(admission_request("", "", "Strict")).value() == FieldValidation::kStrict);
  CHECK(write_options(admission_request("", "", "Ignore")).value() == FieldValidation::kIgnore);
  auto odd = write_options(admission_request("", "", "Loud"));
  REQUIRE_FALSE(odd.ok());
  CHECK(odd.error().code == Code::kInvalid);
  CHECK(odd.error().message ==
        "CreateOptions.meta.k8s.io \"\" is invalid: fieldValidation: Unsupported value: \"Loud\": "
        "supported values: \"\", \"Ignore\", \"Strict\", \"Warn\"");
}

TEST_CASE("dryRun takes only All, in upstream's words") {
  http::Request r = admission_request("", "");
  r.query = {{"dryRun", "All"}};
  CHECK(write_options(r).ok());
  r.query = {{"dryRun", "All"}, {"dryRun", "Bogus"}};
  r.method = "PUT";
  auto bogus = write_options(r);
  REQUIRE_FALSE(bogus.ok());
  CHECK(bogus.error().code == Code::kInvalid);
  CHECK(bogus.error().message ==
        "UpdateOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: "
        "[]string{\"All\", \"Bogus\"}: supported values: \"All\"");
  CHECK_FALSE(dry_run_problem({}).has_value());
}

TEST_CASE("defaults, then a 422 with one cause per field error") {
  AdmissionFixture f;
  nlohmann::json d = nlohmann::json::parse(R"({"metadata": {"name": "web"}, "spec": {
      "selector": {"matchLabels": {"app": "web"}}, "template": {"metadata": {"labels":
      {"app": "web"}}, "spec": {"containers": [{"name": "a"}, {"name": "a", "image": "x"}]}}}})");
  auto e = default_and_validate(d, nullptr, f.schemas, f.deployments);
  REQUIRE(e);
  CHECK(e->code == Code::kInvalid);
  CHECK(e->message ==
        "Deployment.apps \"web\" is invalid: [spec.template.spec.containers[1].name: Duplicate "
        "value: \"a\", spec.template.spec.containers[0].image: Required value]");
  REQUIRE(e->causes.size() == 2);
  CHECK(e->causes[1].reason == "FieldValueRequired");
  CHECK(e->causes[1].field == "spec.template.spec.containers[0].image");
  CHECK(d["spec"]["replicas"] == 1);  // defaults were applied first
}
