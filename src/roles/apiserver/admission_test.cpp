// Tests for fieldValidation (Strict, Warn, Ignore) on decoded bodies, the Warning headers,
// and the 422 built from field errors.
#include "roles/apiserver/admission.h"

#include <catch2/catch.hpp>

#include "roles/apiserver/object_meta.h"

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

TEST_CASE("a body's apiVersion/kind is judged as upstream's legacy scheme judges it") {
  AdmissionFixture f;
  const api::Resource& pods = *f.registry.find("", "v1", "pods");
  auto decode = [&](const api::Resource& r, const std::string& body) {
    http::Request req = admission_request("application/json", body);
    return decode_object(req, f.codecs, r, FieldValidation::kWarn);
  };
  struct Row {
    const api::Resource& resource;
    std::string type;  // "apiVersion" and "kind" members of the body
    std::string message;
  };
  const std::string scheme = " in scheme \"pkg/api/legacyscheme/scheme.go:30\"";
  std::vector<Row> rows = {
      // Not registered at all: the body cannot be decoded.
      {pods, R"("apiVersion": "v2", "kind": "Pod")",
       "Pod in version \"v2\" cannot be handled as a Pod: no kind \"Pod\" is registered for "
       "version \"v2\"" +
           scheme},
      {pods, R"("apiVersion": "v1", "kind": "pod")",
       "pod in version \"v1\" cannot be handled as a Pod: no kind \"pod\" is registered for "
       "version \"v1\"" +
           scheme},
      {pods, R"("apiVersion": "v1", "kind": "Widget")",
       "Widget in version \"v1\" cannot be handled as a Pod: no kind \"Widget\" is registered "
       "for version \"v1\"" +
           scheme},
      {f.deployments, R"("apiVersion": "v1", "kind": "Deployment")",
       "Deployment in version \"v1\" cannot be handled as a Deployment: no kind \"Deployment\" "
       "is registered for version \"v1\"" +
           scheme},
      {f.deployments, R"("apiVersion": "apps/v2", "kind": "Deployment")",
       "Deployment in version \"v2\" cannot be handled as a Deployment: no kind \"Deployment\" "
       "is registered for version \"apps/v2\"" +
           scheme},
      // CustomResourceDefinitions live in another scheme.
      {pods, R"("apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition")",
       "CustomResourceDefinition in version \"v1\" cannot be handled as a Pod: no kind "
       "\"CustomResourceDefinition\" is registered for version \"apiextensions.k8s.io/v1\"" +
           scheme},
      // Registered kinds of another type do not convert.
      {pods, R"("apiVersion": "v1", "kind": "PodList")",
       "PodList in version \"v1\" cannot be handled as a Pod: converting (v1.PodList) to "
       "(core.Pod): unknown conversion"},
      {pods, R"("apiVersion": "apps/v1beta1", "kind": "StatefulSet")",
       "StatefulSet in version \"v1beta1\" cannot be handled as a Pod: converting "
       "(v1beta1.StatefulSet) to (core.Pod): unknown conversion"},
      // The same type in a version upstream registers (served or not): the version check.
      {f.deployments, R"("apiVersion": "apps/v1beta1", "kind": "Deployment")",
       "the API version in the data (apps/v1beta1) does not match the expected API version "
       "(apps/v1)"},
      {f.deployments, R"("apiVersion": "extensions/v1beta1", "kind": "Deployment")",
       "the API version in the data (extensions/v1beta1) does not match the expected API "
       "version (apps/v1)"},
  };
  for (const auto& row : rows) {
    INFO(row.type);
    auto decoded = decode(row.resource, "{" + row.type + R"(, "metadata": {"name": "x"}})");
    REQUIRE_FALSE(decoded.ok());
    CHECK(decoded.error().code == Code::kBadRequest);
    CHECK(decoded.error().message == row.message);
  }
  // An empty apiVersion or kind is the URL's, as upstream's decoder defaults it.
  auto defaulted = decode(pods, R"({"apiVersion": "", "kind": "", "metadata": {"name": "x"}})");
  REQUIRE(defaulted.ok());
  CHECK(defaulted.value().object["apiVersion"] == "v1");
  CHECK(defaulted.value().object["kind"] == "Pod");
}

TEST_CASE("a new uid is a PUT's precondition (409) and a patch's immutable field (422)") {
  AdmissionFixture f;
  const api::Resource& pods = *f.registry.find("", "v1", "pods");
  const nlohmann::json old = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", "x"}, {"namespace", "default"}, {"uid", "1111"}}}};
  nlohmann::json changed = old;
  changed["metadata"]["uid"] = "2222";
  RequestInfo info;
  info.namespace_ = "default";
  info.name = "x";

  auto put = prepare_update(changed, old, pods, info, NewUid::kPrecondition);
  REQUIRE_FALSE(put.ok());
  CHECK(put.error().code == Code::kConflict);
  CHECK(put.error().message.ends_with(
      "Precondition failed: UID in precondition: 2222, UID in object meta: 1111"));

  auto patch = prepare_update(changed, old, pods, info, NewUid::kImmutable);
  REQUIRE_FALSE(patch.ok());
  CHECK(patch.error().code == Code::kInvalid);
  CHECK(patch.error().message ==
        "Pod \"x\" is invalid: metadata.uid: Invalid value: \"2222\": field is immutable");
  // Upstream validates the common metadata and then the kind's: the cause comes twice.
  REQUIRE(patch.error().causes.size() == 2);
  CHECK(patch.error().causes[0].reason == "FieldValueInvalid");
  CHECK(patch.error().causes[0].field == "metadata.uid");
  CHECK(patch.error().causes[0].message == "Invalid value: \"2222\": field is immutable");

  // The same uid, or none, changes nothing.
  CHECK(prepare_update(old, old, pods, info, NewUid::kImmutable).ok());
  nlohmann::json none = old;
  none["metadata"].erase("uid");
  auto kept = prepare_update(none, old, pods, info, NewUid::kImmutable);
  REQUIRE(kept.ok());
  CHECK(kept.value()["metadata"]["uid"] == "1111");
}
