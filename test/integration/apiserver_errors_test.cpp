// The API server's answers to bad and unusual requests, each compared with kube-apiserver's
// (v1.32) answer to the same request: the HTTP status and the whole Status body (reason,
// message, details). Raw HTTPS calls with the admin's client certificate against a real
// `k3c server --disable-agent` on a loopback port.
#include <catch2/catch.hpp>
#include <chrono>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "http/http_client.h"
#include "kubectl_runner.h"
#include "server_sandbox.h"

namespace k3c {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

struct Answer {
  int status = 0;
  std::string body;
  json object() const { return json::parse(body, nullptr, false); }
  // A watch body: one JSON event per line.
  std::vector<json> events() const {
    std::vector<json> out;
    std::istringstream in(body);
    for (std::string line; std::getline(in, line);)
      if (!line.empty()) out.push_back(json::parse(line, nullptr, false));
    return out;
  }
};

// Raw calls to the sandbox's server as system:admin (the server's own client-admin cert).
class Api {
 public:
  explicit Api(const Sandbox& box) : box_(box) {}

  Answer call(const std::string& method, const std::string& target, const std::string& body = "",
              const std::string& content_type = "application/json",
              std::chrono::milliseconds timeout = std::chrono::seconds(20)) const {
    const std::string tls = box_.data_dir() + "/server/tls/";
    http::ClientRequest req;
    req.method = method;
    req.url = "https://127.0.0.1:" + std::to_string(box_.port()) + target;
    req.body = body;
    if (!body.empty()) req.headers.emplace_back("Content-Type", content_type);
    req.headers.emplace_back("Accept", "application/json");
    req.tls.ca_file = tls + "server-ca.crt";
    req.tls.cert_file = tls + "client-admin.crt";
    req.tls.key_file = tls + "client-admin.key";
    req.timeout = timeout;
    req.idle_timeout = timeout;
    auto r = http::fetch(req);
    INFO(method << " " << target << ": " << r.status().to_string());
    REQUIRE(r.is_ok());
    return {r->status, r->body};
  }
  Answer get(const std::string& target) const { return call("GET", target); }
  Answer post(const std::string& target, const json& body) const {
    return call("POST", target, body.dump());
  }
  Answer put(const std::string& target, const json& body) const {
    return call("PUT", target, body.dump());
  }
  Answer remove(const std::string& target, const json& body = nullptr) const {
    return call("DELETE", target, body.is_null() ? "" : body.dump());
  }

 private:
  const Sandbox& box_;
};

// The failure Status upstream answers with; `reason` "" is upstream's StatusReasonUnknown,
// which its encoder leaves out.
json failure(int code, const std::string& reason, const std::string& message,
             json details = nullptr) {
  json s = {{"kind", "Status"},    {"apiVersion", "v1"}, {"metadata", json::object()},
            {"status", "Failure"}, {"message", message}, {"code", code}};
  if (!reason.empty()) s["reason"] = reason;
  if (!details.is_null()) s["details"] = std::move(details);
  return s;
}

// upstream's NewInvalid for request options: `<Kind>.meta.k8s.io "" is invalid: ...`.
json invalid_options(const std::string& kind, const std::string& message, json causes) {
  return failure(422, "Invalid", kind + ".meta.k8s.io \"\" is invalid: " + message,
                 {{"group", "meta.k8s.io"}, {"kind", kind}, {"causes", std::move(causes)}});
}

// A pod no scheduler takes (nothing but the test changes it).
json pod(const std::string& name, json labels = json::object()) {
  json p = {{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", name}}},
            {"spec",
             {{"schedulerName", "none"}, {"containers", {{{"name", "c"}, {"image", "busybox"}}}}}}};
  if (!labels.empty()) p["metadata"]["labels"] = std::move(labels);
  return p;
}

json config_map(const std::string& name, json labels = json::object()) {
  json c = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", name}}}};
  if (!labels.empty()) c["metadata"]["labels"] = std::move(labels);
  return c;
}

constexpr const char* kPods = "/api/v1/namespaces/default/pods";
constexpr const char* kConfigMaps = "/api/v1/namespaces/default/configmaps";

struct ServerUnderTest {
  ServerUnderTest() : server(box, {"--disable-agent"}), api(box) {
    REQUIRE(server.ready == "READY=1");
  }
  Sandbox box;
  RunningServer server;
  Api api;
};

// The names of a list's (or a deletecollection answer's) items.
std::vector<std::string> names_of(const json& list) {
  std::vector<std::string> out;
  for (const auto& item : list["items"]) out.push_back(item["metadata"]["name"]);
  return out;
}

TEST_CASE("bodies that do not fit the URL are refused as kube-apiserver refuses them") {
  ServerUnderTest s;
  const Api& api = s.api;
  REQUIRE(api.post(kPods, pod("p")).status == 201);

  // A Service sent to the pods: it decodes as a v1 Service, which does not convert to a Pod
  // (whatever fieldValidation says: the Service's own fields are all known).
  json service = {{"apiVersion", "v1"},
                  {"kind", "Service"},
                  {"metadata", {{"name", "p"}}},
                  {"spec", {{"ports", {{{"port", 80}}}}}}};
  const json not_a_pod = failure(400, "BadRequest",
                                 "Service in version \"v1\" cannot be handled as a Pod: converting "
                                 "(v1.Service) to (core.Pod): unknown conversion");
  for (const char* query : {"", "?fieldValidation=Strict"}) {
    auto created = api.post(std::string(kPods) + query, service);
    CHECK(created.status == 400);
    CHECK(created.object() == not_a_pod);
  }
  auto replaced = api.put(std::string(kPods) + "/p", service);
  CHECK(replaced.status == 400);
  CHECK(replaced.object() == not_a_pod);
  // Another group's kind: the Go type is apps/v1's Deployment, named "v1.Deployment".
  json deployment = {
      {"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"metadata", {{"name", "d"}}}};
  auto wrong_group = api.post(kPods, deployment);
  CHECK(wrong_group.status == 400);
  CHECK(wrong_group.object() == failure(400, "BadRequest",
                                        "Deployment in version \"v1\" cannot be handled as a Pod: "
                                        "converting (v1.Deployment) to (core.Pod): unknown "
                                        "conversion"));
  // The same kind in another version of its group converts; only then is the version checked.
  json hpa = {
      {"apiVersion", "autoscaling/v1"},
      {"kind", "HorizontalPodAutoscaler"},
      {"metadata", {{"name", "h"}}},
      {"spec",
       {{"scaleTargetRef", {{"kind", "Deployment"}, {"name", "web"}}}, {"maxReplicas", 3}}}};
  auto other_version =
      api.post("/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers", hpa);
  CHECK(other_version.status == 400);
  CHECK(other_version.object() ==
        failure(400, "BadRequest",
                "the API version in the data (autoscaling/v1) does not match the expected API "
                "version (autoscaling/v2)"));

  // The namespace in the body must be the URL's, on create and on update.
  json elsewhere = pod("q");
  elsewhere["metadata"]["namespace"] = "kube-system";
  const json wrong_namespace =
      failure(400, "BadRequest",
              "the namespace of the provided object does not match the namespace sent on the "
              "request");
  auto created = api.post(kPods, elsewhere);
  CHECK(created.status == 400);
  CHECK(created.object() == wrong_namespace);
  json moved = api.get(std::string(kPods) + "/p").object();
  moved["metadata"]["namespace"] = "kube-system";
  auto updated = api.put(std::string(kPods) + "/p", moved);
  CHECK(updated.status == 400);
  CHECK(updated.object() == wrong_namespace);
  // And the name the URL's.
  auto renamed = api.put(std::string(kPods) + "/p", pod("other"));
  CHECK(renamed.status == 400);
  CHECK(renamed.object() ==
        failure(400, "BadRequest",
                "the name of the object (other) does not match the name on the URL (p)"));
}

TEST_CASE("bodies upstream cannot decode, patched uids and missing accounts, raw and in kubectl") {
  ServerUnderTest s;
  const Api& api = s.api;
  const std::string dir = kubectl_dir();
  REQUIRE_FALSE(dir.empty());
  KubectlRunner kubectl{s.box, dir + "/kubectl.1.33"};
  const std::string scheme = " in scheme \"pkg/api/legacyscheme/scheme.go:30\"";

  // An apiVersion/kind upstream's scheme does not register: the body cannot be decoded.
  json v2 = pod("p");
  v2["apiVersion"] = "v2";
  const std::string no_v2 =
      "Pod in version \"v2\" cannot be handled as a Pod: no kind \"Pod\" is registered for "
      "version \"v2\"" +
      scheme;
  auto undecodable = api.post(kPods, v2);
  CHECK(undecodable.status == 400);
  CHECK(undecodable.object() == failure(400, "BadRequest", no_v2));
  const std::string v2_file = s.box.path("v2.json");
  write_file(v2_file, v2.dump());
  auto raw = kubectl({"create", "--raw", kPods, "-f", v2_file});
  CHECK(raw.exit_code == 1);
  CHECK_THAT(raw.err, Catch::Contains("Error from server (BadRequest): " + no_v2));
  // kubectl maps a kind case-insensitively and sends it as written.
  const std::string lower_file = s.box.path("lower.yaml");
  write_file(lower_file,
             "apiVersion: v1\nkind: pod\nmetadata: {name: lower}\n"
             "spec: {containers: [{name: c, image: busybox}]}\n");
  auto lower = kubectl({"apply"}, lower_file);
  CHECK(lower.exit_code == 1);
  CHECK_THAT(lower.err,
             Catch::Contains("Error from server (BadRequest): error when creating \"" + lower_file +
                             "\": pod in version \"v1\" cannot be handled as a Pod: "
                             "no kind \"pod\" is registered for version \"v1\"" +
                             scheme));

  // A patch that changes the uid: no precondition, an immutable field (the cause twice, as
  // upstream validates the common metadata and then the pod's).
  REQUIRE(api.post(kPods, pod("u")).status == 201);
  const json cause = {{"reason", "FieldValueInvalid"},
                      {"message", "Invalid value: \"2222\": field is immutable"},
                      {"field", "metadata.uid"}};
  const json immutable =
      failure(422, "Invalid",
              "Pod \"u\" is invalid: metadata.uid: Invalid value: \"2222\": field is immutable",
              {{"name", "u"}, {"kind", "Pod"}, {"causes", {cause, cause}}});
  auto merge = api.call("PATCH", std::string(kPods) + "/u", R"({"metadata":{"uid":"2222"}})",
                        "application/merge-patch+json");
  CHECK(merge.status == 422);
  CHECK(merge.object() == immutable);
  auto json_patch = api.call("PATCH", std::string(kPods) + "/u",
                             R"([{"op":"replace","path":"/metadata/uid","value":"2222"}])",
                             "application/json-patch+json");
  CHECK(json_patch.status == 422);
  CHECK(json_patch.object() == immutable);
  auto patched = kubectl({"patch", "pod", "u", "-p", R"({"metadata":{"uid":"2222"}})"});
  CHECK(patched.exit_code == 1);
  CHECK_THAT(patched.err,
             Catch::Contains("The Pod \"u\" is invalid: metadata.uid: Invalid value: \"2222\": "
                             "field is immutable"));

  // A pod naming an account that does not exist.
  json bot = pod("b");
  bot["spec"]["serviceAccountName"] = "bot";
  auto refused = api.post(kPods, bot);
  CHECK(refused.status == 403);
  CHECK(refused.object() == failure(403, "Forbidden",
                                    "pods \"b\" is forbidden: error looking up service account "
                                    "default/bot: serviceaccount \"bot\" not found",
                                    {{"name", "b"}, {"kind", "pods"}}));
  auto run = kubectl(
      {"run", "b", "--image=busybox", R"(--overrides={"spec":{"serviceAccountName":"bot"}})"});
  CHECK(run.exit_code == 1);
  CHECK_THAT(run.err, Catch::Contains("Error from server (Forbidden): pods \"b\" is forbidden: "
                                      "error looking up service account default/bot: "
                                      "serviceaccount \"bot\" not found"));
  // Admission sees a pod by its generateName until the name is made.
  json generated = pod("");
  generated["metadata"] = {{"generateName", "web-"}};
  generated["spec"]["serviceAccountName"] = "bot";
  CHECK_THAT(api.post(kPods, generated).object().value("message", ""),
             Catch::StartsWith("pods \"web-\" is forbidden: error looking up service account"));
}

TEST_CASE("stale and malformed resourceVersions get upstream's answers") {
  ServerUnderTest s;
  const Api& api = s.api;
  auto created = api.post(kPods, pod("x"));
  REQUIRE(created.status == 201);
  json current = created.object();
  const std::string uid = current["metadata"]["uid"];

  // An update from a stale copy: the storage precondition fails.
  json changed = current;
  changed["metadata"]["labels"] = {{"a", "b"}};
  REQUIRE(api.put(std::string(kPods) + "/x", changed).status == 200);
  auto stale = api.put(std::string(kPods) + "/x", current);
  CHECK(stale.status == 409);
  CHECK(stale.object() == failure(409, "Conflict",
                                  "Operation cannot be fulfilled on pods \"x\": the object has "
                                  "been modified; please apply your changes to the latest "
                                  "version and try again",
                                  {{"name", "x"}, {"kind", "pods"}}));
  // A uid that is not the object's is the storage layer's UID precondition, in its words.
  json other_uid = api.get(std::string(kPods) + "/x").object();
  other_uid["metadata"]["uid"] = "0000";
  auto wrong_uid = api.put(std::string(kPods) + "/x", other_uid);
  CHECK(wrong_uid.status == 409);
  CHECK(wrong_uid.object() ==
        failure(409, "Conflict",
                "Operation cannot be fulfilled on pods \"x\": StorageError: invalid object, "
                "Code: 4, Key: /registry/pods/default/x, ResourceVersion: 0, "
                "AdditionalErrorMsg: Precondition failed: UID in precondition: 0000, UID in "
                "object meta: " +
                    uid,
                {{"name", "x"}, {"kind", "pods"}}));

  // A resourceVersion that is not a number: the watch cache's parse error, which upstream
  // passes through unconverted (500, no reason) for get, list and watch...
  const std::string parse_error =
      "resourceVersion: Invalid value: \"abc\": strconv.ParseUint: parsing \"abc\": invalid "
      "syntax";
  for (const std::string& target :
       {std::string(kPods) + "/x?resourceVersion=abc", std::string(kPods) + "?resourceVersion=abc",
        std::string(kPods) + "?watch=1&resourceVersion=abc"}) {
    INFO(target);
    auto a = api.get(target);
    CHECK(a.status == 500);
    CHECK(a.object() == failure(500, "", parse_error));
  }
  auto negative = api.get(std::string(kPods) + "?resourceVersion=-1");
  CHECK(negative.status == 500);
  CHECK(negative.object() ==
        failure(500, "",
                "resourceVersion: Invalid value: \"-1\": strconv.ParseUint: parsing \"-1\": "
                "invalid syntax"));
  // ...and a paged list, which upstream reads from etcd, is a 400 saying so.
  auto paged = api.get(std::string(kPods) + "?limit=5&resourceVersion=abc");
  CHECK(paged.status == 400);
  CHECK(paged.object() == failure(400, "BadRequest", "invalid resource version: " + parse_error));
}

TEST_CASE("missing objects and unknown resources are 404 with upstream's details") {
  ServerUnderTest s;
  const Api& api = s.api;
  auto missing = api.get(std::string(kPods) + "/x");
  CHECK(missing.status == 404);
  CHECK(missing.object() ==
        failure(404, "NotFound", "pods \"x\" not found", {{"name", "x"}, {"kind", "pods"}}));
  auto missing_deployment = api.get("/apis/apps/v1/namespaces/default/deployments/web");
  CHECK(missing_deployment.status == 404);
  CHECK(missing_deployment.object() ==
        failure(404, "NotFound", "deployments.apps \"web\" not found",
                {{"name", "web"}, {"group", "apps"}, {"kind", "deployments"}}));
  // No such resource: go-restful's 404 made a Status, with empty details.
  for (const char* target : {"/api/v1/namespaces/default/flurbs", "/api/v1/flurbs/x",
                             "/apis/apps/v1/namespaces/default/flurbs"}) {
    INFO(target);
    auto unknown = api.get(target);
    CHECK(unknown.status == 404);
    CHECK(unknown.object() == failure(404, "NotFound",
                                      "the server could not find the requested resource",
                                      json::object()));
  }
}

TEST_CASE("dryRun writes nothing, answers as the write would, and takes only All") {
  ServerUnderTest s;
  const Api& api = s.api;
  auto dry = api.post(std::string(kPods) + "?dryRun=All", pod("dry"));
  CHECK(dry.status == 201);
  json made = dry.object();
  // The object as it would be stored: defaulted, with a uid, but no resourceVersion.
  CHECK(made["metadata"]["name"] == "dry");
  CHECK(made["metadata"]["namespace"] == "default");
  CHECK_FALSE(made["metadata"].value("uid", "").empty());
  CHECK_FALSE(made["metadata"].contains("resourceVersion"));
  CHECK(made["spec"]["restartPolicy"] == "Always");
  CHECK(made["spec"]["containers"][0]["imagePullPolicy"] == "Always");
  CHECK(made["spec"]["containers"][0]["terminationMessagePath"] == "/dev/termination-log");
  CHECK(made["status"]["phase"] == "Pending");
  CHECK(api.get(std::string(kPods) + "/dry").status == 404);
  // A dry-run create of an existing name is refused as the real one would be.
  REQUIRE(api.post(kPods, pod("real")).status == 201);
  auto exists = api.post(std::string(kPods) + "?dryRun=All", pod("real"));
  CHECK(exists.status == 409);
  CHECK(exists.object() == failure(409, "AlreadyExists", "pods \"real\" already exists",
                                   {{"name", "real"}, {"kind", "pods"}}));

  // Any other value is refused by upstream's option validation, verb by verb.
  const std::string bogus = "Unsupported value: []string{\"Bogus\"}: supported values: \"All\"";
  const json cause = {
      {{"reason", "FieldValueNotSupported"}, {"message", bogus}, {"field", "dryRun"}}};
  auto create = api.post(std::string(kPods) + "?dryRun=Bogus", pod("bogus"));
  CHECK(create.status == 422);
  CHECK(create.object() == invalid_options("CreateOptions", "dryRun: " + bogus, cause));
  json real = api.get(std::string(kPods) + "/real").object();
  auto update = api.put(std::string(kPods) + "/real?dryRun=Bogus", real);
  CHECK(update.status == 422);
  CHECK(update.object() == invalid_options("UpdateOptions", "dryRun: " + bogus, cause));
  auto patch = api.call("PATCH", std::string(kPods) + "/real?dryRun=Bogus",
                        R"({"metadata":{"labels":{"a":"b"}}})", "application/merge-patch+json");
  CHECK(patch.status == 422);
  CHECK(patch.object() == invalid_options("PatchOptions", "dryRun: " + bogus, cause));
  auto remove = api.remove(std::string(kPods) + "/real?dryRun=Bogus");
  CHECK(remove.status == 422);
  CHECK(remove.object() == invalid_options("DeleteOptions", "dryRun: " + bogus, cause));
  // Two problems at once are listed together, in upstream's order.
  auto both =
      api.post(std::string(kPods) + "?dryRun=All&dryRun=Bogus&fieldValidation=Loud", pod("bogus"));
  CHECK(both.status == 422);
  CHECK(both.object() ==
        invalid_options(
            "CreateOptions",
            "[dryRun: Unsupported value: []string{\"All\", \"Bogus\"}: supported values: "
            "\"All\", fieldValidation: Unsupported value: \"Loud\": supported values: \"\", "
            "\"Ignore\", \"Strict\", \"Warn\"]",
            {{{"reason", "FieldValueNotSupported"},
              {"message",
               "Unsupported value: []string{\"All\", \"Bogus\"}: supported values: \"All\""},
              {"field", "dryRun"}},
             {{"reason", "FieldValueNotSupported"},
              {"message",
               "Unsupported value: \"Loud\": supported values: \"\", \"Ignore\", \"Strict\", "
               "\"Warn\""},
              {"field", "fieldValidation"}}}));

  // kubectl delete --dry-run=server sends the option in the DeleteOptions body.
  auto dry_delete = api.remove(std::string(kPods) + "/real", {{"kind", "DeleteOptions"},
                                                              {"apiVersion", "v1"},
                                                              {"propagationPolicy", "Background"},
                                                              {"dryRun", {"All"}}});
  CHECK(dry_delete.status == 200);
  CHECK(api.get(std::string(kPods) + "/real").status == 200);
  auto bad_policy = api.remove(std::string(kPods) + "/real", {{"propagationPolicy", "Never"}});
  CHECK(bad_policy.status == 422);
  const std::string never =
      "Unsupported value: \"Never\": supported values: \"Foreground\", \"Background\", "
      "\"Orphan\", \"nil\"";
  CHECK(bad_policy.object() == invalid_options("DeleteOptions", "propagationPolicy: " + never,
                                               {{{"reason", "FieldValueNotSupported"},
                                                 {"message", never},
                                                 {"field", "propagationPolicy"}}}));
  // Options of the wrong type are refused; a null one is an unset one.
  auto typed = api.remove(std::string(kPods) + "/real", {{"dryRun", {1}}});
  CHECK(typed.status == 400);
  CHECK(api.get(std::string(kPods) + "/real").status == 200);
  auto nulls = api.remove(std::string(kPods) + "/real",
                          {{"propagationPolicy", nullptr}, {"dryRun", nullptr}});
  CHECK(nulls.status == 200);
}

TEST_CASE("delete preconditions and deletecollection answer as upstream") {
  ServerUnderTest s;
  const Api& api = s.api;
  auto created = api.post(kConfigMaps, config_map("c"));
  REQUIRE(created.status == 201);
  const std::string uid = created.object()["metadata"]["uid"];
  const std::string rv = created.object()["metadata"]["resourceVersion"];

  // The early check of the options (rest.BeforeDelete) words it, naming the kind.
  auto wrong_uid =
      api.remove(std::string(kConfigMaps) + "/c", {{"preconditions", {{"uid", "wrong"}}}});
  CHECK(wrong_uid.status == 409);
  CHECK(wrong_uid.object() ==
        failure(409, "Conflict",
                "Operation cannot be fulfilled on ConfigMap \"c\": the UID in the precondition "
                "(wrong) does not match the UID in record (" +
                    uid + "). The object might have been deleted and then recreated",
                {{"name", "c"}, {"kind", "ConfigMap"}}));
  auto wrong_rv =
      api.remove(std::string(kConfigMaps) + "/c", {{"preconditions", {{"resourceVersion", "1"}}}});
  CHECK(wrong_rv.status == 409);
  CHECK(wrong_rv.object() ==
        failure(409, "Conflict",
                "Operation cannot be fulfilled on ConfigMap \"c\": the ResourceVersion in the "
                "precondition (1) does not match the ResourceVersion in record (" +
                    rv + "). The object might have been modified",
                {{"name", "c"}, {"kind", "ConfigMap"}}));
  CHECK(api.get(std::string(kConfigMaps) + "/c").status == 200);
  auto deleted = api.remove(std::string(kConfigMaps) + "/c",
                            {{"preconditions", {{"uid", uid}, {"resourceVersion", rv}}}});
  CHECK(deleted.status == 200);
  CHECK(deleted.object() ==
        json({{"kind", "Status"},
              {"apiVersion", "v1"},
              {"metadata", json::object()},
              {"status", "Success"},
              {"details", {{"name", "c"}, {"kind", "configmaps"}, {"uid", uid}}}}));
  CHECK(api.get(std::string(kConfigMaps) + "/c").status == 404);
  // Pods (as services, serviceaccounts, persistentvolumes and claims) answer an immediate
  // delete with the object as it was stored, as upstream's ReturnDeletedObject.
  auto made = api.post(kPods, pod("gone"));
  REQUIRE(made.status == 201);
  auto gone = api.remove(std::string(kPods) + "/gone");
  CHECK(gone.status == 200);
  INFO(gone.object().dump());
  CHECK(gone.object()["kind"] == "Pod");
  CHECK(gone.object()["metadata"] == made.object()["metadata"]);

  // deletecollection removes what the selector matches and answers with the list it deleted.
  for (const auto& [name, app] : {std::pair{"a1", "a"}, {"a2", "a"}, {"b1", "b"}})
    REQUIRE(api.post(kConfigMaps, config_map(name, {{"app", app}})).status == 201);
  auto dry = api.remove(std::string(kConfigMaps) + "?labelSelector=app%3Da&dryRun=All");
  CHECK(dry.status == 200);
  CHECK(names_of(api.get(std::string(kConfigMaps) + "?labelSelector=app").object()) ==
        std::vector<std::string>{"a1", "a2", "b1"});
  auto collection = api.remove(std::string(kConfigMaps) + "?labelSelector=app%3Da");
  CHECK(collection.status == 200);
  json list = collection.object();
  CHECK(list["kind"] == "ConfigMapList");
  CHECK(list["apiVersion"] == "v1");
  CHECK_FALSE(list["metadata"].value("resourceVersion", "").empty());
  CHECK(names_of(list) == std::vector<std::string>{"a1", "a2"});
  CHECK(names_of(api.get(std::string(kConfigMaps) + "?labelSelector=app").object()) ==
        std::vector<std::string>{"b1"});
}

TEST_CASE("watches end on time and send bookmarks before they end") {
  ServerUnderTest s;
  const Api& api = s.api;
  REQUIRE(api.post(kConfigMaps, config_map("w")).status == 201);
  const std::string target = std::string(kConfigMaps) + "?watch=1";

  auto started = Clock::now();
  auto timed = api.get(target + "&timeoutSeconds=2");
  auto took = Clock::now() - started;
  CHECK(timed.status == 200);
  CHECK(took >= std::chrono::milliseconds(1900));
  CHECK(took < std::chrono::seconds(5));
  bool saw_w = false;
  for (const auto& e : timed.events())
    saw_w |= e["type"] == "ADDED" && e["object"]["metadata"]["name"] == "w";
  CHECK(saw_w);

  // Bookmarks: upstream's cacher sends one two seconds before the watch's end (and every
  // minute), carrying the revision the watch has reached.
  const std::string rv = api.get(kConfigMaps).object()["metadata"]["resourceVersion"];
  auto bookmarked =
      api.get(target + "&allowWatchBookmarks=true&timeoutSeconds=5&resourceVersion=" + rv);
  CHECK(bookmarked.status == 200);
  std::vector<json> bookmarks;
  for (const auto& e : bookmarked.events())
    if (e["type"] == "BOOKMARK") bookmarks.push_back(e["object"]);
  REQUIRE(bookmarks.size() == 1);
  CHECK(bookmarks[0]["kind"] == "ConfigMap");
  CHECK(bookmarks[0]["apiVersion"] == "v1");
  CHECK(std::stoll(bookmarks[0]["metadata"]["resourceVersion"].get<std::string>()) >=
        std::stoll(rv));
  // Without allowWatchBookmarks there are none.
  for (const auto& e : api.get(target + "&timeoutSeconds=3&resourceVersion=" + rv).events())
    CHECK(e["type"] != "BOOKMARK");

  // sendInitialEvents (the watch-list protocol): the current objects at a state at least as
  // new as asked, then the initial-events-end bookmark; it needs resourceVersionMatch.
  auto streamed = api.get(target +
                          "&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"
                          "&allowWatchBookmarks=true&timeoutSeconds=1&resourceVersion=" +
                          rv);
  CHECK(streamed.status == 200);
  auto events = streamed.events();
  REQUIRE(events.size() >= 2);
  CHECK(events.front()["type"] == "ADDED");
  CHECK(events.back()["type"] == "BOOKMARK");
  CHECK(events.back()["object"]["metadata"]["annotations"]["k8s.io/initial-events-end"] == "true");
  auto unmatched = api.get(target + "&sendInitialEvents=true");
  CHECK(unmatched.status == 422);
  const std::string why = "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan";
  CHECK(unmatched.object() == invalid_options("ListOptions",
                                              "resourceVersionMatch: Forbidden: " + why,
                                              {{{"reason", "FieldValueForbidden"},
                                                {"message", "Forbidden: " + why},
                                                {"field", "resourceVersionMatch"}}}));
}

TEST_CASE("a watch from before the watch cache's history gets an ERROR event with a 410") {
  Sandbox box;
  Api api(box);
  std::string old_rv;
  {
    RunningServer first(box, {"--disable-agent"});
    REQUIRE(first.ready == "READY=1");
    auto created = api.post(kConfigMaps, config_map("w"));
    REQUIRE(created.status == 201);
    old_rv = created.object()["metadata"]["resourceVersion"];
    REQUIRE(api.post(kConfigMaps, config_map("later")).status == 201);  // the store moves on
    first.process.signal(SIGTERM);
    REQUIRE(first.process.wait(std::chrono::seconds(10)) == 0);
  }
  // A restarted server's cache begins at the store's revision then (as upstream's begins
  // at its first list): a watch from before it is answered 200 with one ERROR event.
  RunningServer second(box, {"--disable-agent"});
  REQUIRE(second.ready == "READY=1");
  auto too_old =
      api.get(std::string(kConfigMaps) + "?watch=1&timeoutSeconds=5&resourceVersion=" + old_rv);
  CHECK(too_old.status == 200);
  auto events = too_old.events();
  REQUIRE(events.size() == 1);
  CHECK(events[0]["type"] == "ERROR");
  json status = events[0]["object"];
  CHECK_THAT(status.value("message", ""),
             Catch::StartsWith("too old resource version: " + old_rv + " ("));
  status.erase("message");
  CHECK(status == json({{"kind", "Status"},
                        {"apiVersion", "v1"},
                        {"metadata", json::object()},
                        {"status", "Failure"},
                        {"reason", "Expired"},
                        {"code", 410}}));
}

TEST_CASE("resourceVersionMatch selects upstream's list semantics") {
  ServerUnderTest s;
  const Api& api = s.api;
  auto forbidden = [](const std::string& why) {
    return json{{"reason", "FieldValueForbidden"},
                {"message", "Forbidden: " + why},
                {"field", "resourceVersionMatch"}};
  };
  const std::string unless = "resourceVersionMatch is forbidden unless resourceVersion is provided";
  auto no_rv = api.get(std::string(kConfigMaps) + "?resourceVersionMatch=NotOlderThan");
  CHECK(no_rv.status == 422);
  CHECK(no_rv.object() == invalid_options("ListOptions",
                                          "resourceVersionMatch: Forbidden: " + unless,
                                          {forbidden(unless)}));
  const std::string with_continue = "resourceVersionMatch is forbidden when continue is provided";
  auto two = api.get(std::string(kConfigMaps) + "?resourceVersionMatch=Exact&continue=abc");
  CHECK(two.status == 422);
  CHECK(two.object() ==
        invalid_options("ListOptions",
                        "[resourceVersionMatch: Forbidden: " + unless +
                            ", resourceVersionMatch: Forbidden: " + with_continue + "]",
                        {forbidden(unless), forbidden(with_continue)}));
  const std::string unsupported =
      "Unsupported value: \"Newest\": supported values: \"Exact\", \"NotOlderThan\", \"\"";
  auto unknown =
      api.get(std::string(kConfigMaps) + "?resourceVersion=5&resourceVersionMatch=Newest");
  CHECK(unknown.status == 422);
  CHECK(unknown.object() == invalid_options("ListOptions", "resourceVersionMatch: " + unsupported,
                                            {{{"reason", "FieldValueNotSupported"},
                                              {"message", unsupported},
                                              {"field", "resourceVersionMatch"}}}));
  const std::string exact_zero =
      "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"";
  auto zero = api.get(std::string(kConfigMaps) + "?resourceVersion=0&resourceVersionMatch=Exact");
  CHECK(zero.status == 422);
  CHECK(zero.object() == invalid_options("ListOptions",
                                         "resourceVersionMatch: Forbidden: " + exact_zero,
                                         {forbidden(exact_zero)}));
  const std::string for_watch =
      "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided";
  auto watch = api.get(std::string(kConfigMaps) +
                       "?watch=1&resourceVersion=5&resourceVersionMatch=NotOlderThan");
  CHECK(watch.status == 422);
  CHECK(watch.object() == invalid_options("ListOptions",
                                          "resourceVersionMatch: Forbidden: " + for_watch,
                                          {forbidden(for_watch)}));
  auto initial_on_list = api.get(std::string(kConfigMaps) + "?sendInitialEvents=true");
  CHECK(initial_on_list.status == 422);
  CHECK(initial_on_list.object() ==
        invalid_options("ListOptions",
                        "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list",
                        {{{"reason", "FieldValueForbidden"},
                          {"message", "Forbidden: sendInitialEvents is forbidden for list"},
                          {"field", "sendInitialEvents"}}}));

  // NotOlderThan: the cache's list, at least as new as asked.
  REQUIRE(api.post(kConfigMaps, config_map("first")).status == 201);
  const std::string first_rv = api.get(kConfigMaps).object()["metadata"]["resourceVersion"];
  REQUIRE(api.post(kConfigMaps, config_map("second")).status == 201);
  auto newer = api.get(std::string(kConfigMaps) +
                       "?resourceVersionMatch=NotOlderThan&resourceVersion=" + first_rv);
  REQUIRE(newer.status == 200);
  CHECK(std::stoll(newer.object()["metadata"]["resourceVersion"].get<std::string>()) >
        std::stoll(first_rv));
  auto has = [](const json& list, const std::string& name) {
    auto names = names_of(list);
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  CHECK(has(newer.object(), "second"));
  // Exact: the list as it was at that revision (from the store's history), pages included.
  auto exact =
      api.get(std::string(kConfigMaps) + "?resourceVersionMatch=Exact&resourceVersion=" + first_rv);
  REQUIRE(exact.status == 200);
  CHECK(exact.object()["metadata"]["resourceVersion"] == first_rv);
  CHECK(has(exact.object(), "first"));
  CHECK_FALSE(has(exact.object(), "second"));
  // A paged list with a resourceVersion is upstream's legacy exact read.
  auto legacy = api.get(std::string(kConfigMaps) + "?limit=500&resourceVersion=" + first_rv);
  REQUIRE(legacy.status == 200);
  CHECK(legacy.object()["metadata"]["resourceVersion"] == first_rv);
  CHECK_FALSE(has(legacy.object(), "second"));
  // A revision the store has not reached: etcd's error, passed through by upstream.
  auto future =
      api.get(std::string(kConfigMaps) + "?resourceVersionMatch=Exact&resourceVersion=999999999");
  CHECK(future.status == 500);
  CHECK(future.object() ==
        failure(500, "", "etcdserver: mvcc: required revision is a future revision"));
  // Once the store has compacted the revision away (it keeps 100 revisions and 5 s): 410.
  for (int i = 0; i < 110; ++i)
    REQUIRE(api.post(kConfigMaps, config_map("fill-" + std::to_string(i))).status == 201);
  Answer gone;
  CHECK(eventually(
      [&] {
        gone = api.get(std::string(kConfigMaps) +
                       "?resourceVersionMatch=Exact&resourceVersion=" + first_rv);
        return gone.status != 200;
      },
      std::chrono::seconds(30)));
  CHECK(gone.status == 410);
  CHECK(gone.object() ==
        failure(410, "Expired", "The resourceVersion for the provided list is too old."));
}

}  // namespace
}  // namespace k3c
