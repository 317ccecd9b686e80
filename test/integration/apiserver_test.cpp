// The API server driven by the real kubectl (1.27 and 1.33, the oldest and newest here)
// against a real `k3c server` on a loopback port: discovery, tables, create/get/list/watch,
// label/annotate/patch/replace/delete, and upstream's exact error messages.
#include <limits.h>
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "kubectl_runner.h"
#include "server_sandbox.h"

namespace k3c {
namespace {

struct Kubectl {
  const Sandbox& box;
  std::string binary;
  Finished operator()(std::vector<std::string> args, const std::string& stdin_file = "") const {
    args.insert(args.begin(), binary);
    std::map<std::string, std::string> env = box.env();
    env["KUBECONFIG"] = box.kubeconfig();
    if (!stdin_file.empty()) {
      args.push_back("-f");
      args.push_back(stdin_file);
    }
    return run_to_end(args, env, box.path("kubectl"), 30s);
  }
};

// A query parameter's value, percent-encoded (continue tokens are base64: + / =).
std::string escaped(const std::string& value) {
  std::string out;
  for (unsigned char c : value) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      out += hex;
    }
  }
  return out;
}

TEST_CASE("kubectl drives the API server") {
  const std::string dir = kubectl_dir();
  REQUIRE_FALSE(dir.empty());
  auto version = GENERATE(as<std::string>{}, "1.27", "1.33");
  INFO("kubectl " << version);
  Sandbox box;
  RunningServer server(box, {"--disable-agent", "--disable-controller-manager"});
  REQUIRE(server.ready == "READY=1");
  Kubectl kubectl{box, dir + "/kubectl." + version};

  SECTION("version, health and discovery") {
    auto v = kubectl({"version"});
    CHECK(v.exit_code == 0);
    CHECK_THAT(v.out, Catch::Contains("v1.32.0+k3c1"));
    auto health = kubectl({"get", "--raw", "/readyz?verbose"});
    CHECK_THAT(health.out, Catch::Contains("[+]etcd ok\n"));
    CHECK_THAT(health.out, Catch::Contains("readyz check passed"));
    CHECK(kubectl({"get", "--raw", "/livez/etcd"}).out == "ok");
    CHECK(kubectl({"get", "--raw", "/healthz/no-such-check"}).exit_code == 1);
    // componentstatuses: this server runs a scheduler but no controller manager.
    auto cs = kubectl({"get", "componentstatuses"});
    CHECK(cs.exit_code == 0);
    CHECK(cs.err == "Warning: v1 ComponentStatus is deprecated in v1.19+\n");
    CHECK_THAT(cs.out,
               Catch::Matches("NAME +STATUS +MESSAGE +ERROR\n"
                              "scheduler +Healthy +ok +\n"
                              "controller-manager +Unhealthy +k3c runs no controller manager "
                              "in this server \\(--disable-controller-manager\\)\n"
                              "etcd-0 +Healthy +ok +\n"));
    auto resources = kubectl({"api-resources"});
    CHECK(resources.exit_code == 0);
    CHECK_THAT(resources.out,
               Catch::Contains("deployments                         deploy       apps/v1"));
    auto versions = kubectl({"api-versions"});
    CHECK_THAT(versions.out, Catch::Contains("apps/v1\n"));
    CHECK_THAT(versions.out, Catch::Contains("rbac.authorization.k8s.io/v1\n"));
  }

  SECTION("/metrics counts requests, open watches and stored objects") {
    REQUIRE(kubectl({"create", "configmap", "counted", "--from-literal=a=b"}).exit_code == 0);
    REQUIRE(kubectl({"create", "configmap", "counted", "--from-literal=a=b"}).exit_code == 1);
    // A watch held open while the metrics are read.
    std::map<std::string, std::string> env = box.env();
    env["KUBECONFIG"] = box.kubeconfig();
    ChildProcess watch({kubectl.binary, "get", "configmaps", "-w"}, env, box.path("watch"));
    std::string text;
    const std::string watching =
        "apiserver_longrunning_requests{component=\"apiserver\",group=\"\","
        "resource=\"configmaps\",scope=\"namespace\",subresource=\"\",verb=\"WATCH\","
        "version=\"v1\"} 1\n";
    for (int i = 0; i < 100 && text.find(watching) == std::string::npos; ++i) {
      auto m = kubectl({"get", "--raw", "/metrics"});
      REQUIRE(m.exit_code == 0);
      text = m.out;
      std::this_thread::sleep_for(100ms);
    }
    CHECK_THAT(text, Catch::Contains(watching));
    const std::string create =
        "component=\"apiserver\",dry_run=\"\",group=\"\",resource=\"configmaps\","
        "scope=\"resource\",subresource=\"\",verb=\"POST\",version=\"v1\"";
    CHECK_THAT(text, Catch::Contains("apiserver_request_total{code=\"201\"," + create + "} "));
    CHECK_THAT(text, Catch::Contains("apiserver_request_total{code=\"409\"," + create + "} 1\n"));
    CHECK_THAT(text, Catch::Contains("apiserver_request_duration_seconds_bucket{" + create +
                                     ",le=\"+Inf\"}"));
    CHECK_THAT(text, Catch::Contains("# TYPE apiserver_request_duration_seconds histogram\n"));
    CHECK_THAT(text, Catch::Contains("apiserver_storage_objects{resource=\"namespaces\"} 4\n"));
    CHECK_THAT(text, Catch::Contains("git_version=\"v1.32.0+k3c1\""));
    const size_t rss = text.find("\nprocess_resident_memory_bytes ");
    REQUIRE(rss != std::string::npos);
    CHECK(std::stod(text.substr(rss + 31)) > 1e6);
    // The watch's end is seen: no longer open, its duration observed.
    watch.signal(SIGTERM);
    watch.wait(5s);
    const std::string ended = watching.substr(0, watching.size() - 2) + "0\n";
    for (int i = 0; i < 100 && text.find(ended) == std::string::npos; ++i) {
      std::this_thread::sleep_for(100ms);
      text = kubectl({"get", "--raw", "/metrics"}).out;
    }
    CHECK_THAT(text, Catch::Contains(ended));
    CHECK_THAT(text,
               Catch::Contains("apiserver_request_duration_seconds_count{component=\"apiserver\","
                               "dry_run=\"\",group=\"\",resource=\"configmaps\","
                               "scope=\"namespace\",subresource=\"\",verb=\"WATCH\","
                               "version=\"v1\"} 1\n"));
  }

  SECTION("the built-in namespaces, as a table") {
    auto ns = kubectl({"get", "namespaces"});
    CHECK(ns.exit_code == 0);
    CHECK_THAT(ns.out,
               Catch::StartsWith("NAME              STATUS   AGE\ndefault           Active"));
    CHECK_THAT(ns.out, Catch::Contains("kube-node-lease   Active"));
    CHECK_THAT(ns.out, Catch::Contains("kube-system       Active"));
  }

  SECTION("create -f, get, label, annotate, patch, replace, delete") {
    const std::string file = box.path("cm.yaml");
    write_file(
        file,
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-config\n  labels: {app: web}\n"
        "data:\n  color: blue\n");
    auto created = kubectl({"create"}, file);
    CHECK(created.exit_code == 0);
    CHECK(created.out == "configmap/web-config created\n");
    auto again = kubectl({"create"}, file);
    CHECK(again.exit_code == 1);
    CHECK_THAT(again.err,
               Catch::Contains("Error from server (AlreadyExists): error when creating \"" + file +
                               "\": configmaps \"web-config\" already exists"));
    auto table = kubectl({"get", "configmaps", "-l", "app=web"});
    CHECK_THAT(table.out, Catch::StartsWith("NAME         DATA   AGE\nweb-config   1"));
    CHECK(kubectl({"label", "configmap", "web-config", "tier=frontend"}).exit_code == 0);
    CHECK(kubectl({"annotate", "configmap", "web-config", "note=hello"}).exit_code == 0);
    auto labels = kubectl({"get", "cm", "web-config", "-o",
                           "jsonpath={.metadata.labels.tier}/{.metadata.annotations.note}"});
    CHECK(labels.out == "frontend/hello");
    CHECK(kubectl({"patch", "cm", "web-config", "--type", "merge", "-p",
                   R"({"data":{"color":"green"}})"})
              .exit_code == 0);
    CHECK(kubectl({"patch", "cm", "web-config", "--type", "json", "-p",
                   R"([{"op":"add","path":"/data/size","value":"L"}])"})
              .exit_code == 0);
    auto data = kubectl({"get", "cm", "web-config", "-o", "jsonpath={.data.color},{.data.size}"});
    CHECK(data.out == "green,L");
    write_file(
        file,
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-config\ndata:\n  color: red\n");
    CHECK(kubectl({"replace"}, file).exit_code == 0);
    CHECK(kubectl({"get", "cm", "web-config", "-o", "jsonpath={.data}"}).out ==
          R"({"color":"red"})");
    auto deleted = kubectl({"delete", "configmap", "web-config"});
    CHECK(deleted.out == "configmap \"web-config\" deleted\n");
    auto gone = kubectl({"get", "configmap", "web-config"});
    CHECK(gone.exit_code == 1);
    CHECK(gone.err == "Error from server (NotFound): configmaps \"web-config\" not found\n");
  }

  SECTION("the namespaces the server creates cannot be deleted") {
    for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
      auto refused = kubectl({"delete", "namespace", ns});
      CHECK(refused.exit_code == 1);
      CHECK(refused.err == std::string("Error from server (Forbidden): namespaces \"") + ns +
                               "\" is forbidden: this namespace may not be deleted\n");
    }
    CHECK(kubectl({"get", "namespace", "kube-system", "-o", "name"}).out ==
          "namespace/kube-system\n");
  }

  SECTION("create generators (protobuf bodies from kubectl 1.32+)") {
    CHECK(kubectl({"create", "namespace", "demo"}).out == "namespace/demo created\n");
    CHECK(kubectl({"create", "configmap", "settings", "-n", "demo", "--from-literal=mode=fast"})
              .exit_code == 0);
    CHECK(kubectl({"create", "secret", "generic", "creds", "-n", "demo",
                   "--from-literal=password=s3cret"})
              .exit_code == 0);
    CHECK(kubectl({"create", "serviceaccount", "bot", "-n", "demo"}).exit_code == 0);
    CHECK(kubectl({"create", "deployment", "web", "-n", "demo", "--image=busybox", "--replicas=2"})
              .exit_code == 0);
    CHECK(kubectl({"get", "cm", "settings", "-n", "demo", "-o", "jsonpath={.data.mode}"}).out ==
          "fast");
    CHECK(
        kubectl({"get", "secret", "creds", "-n", "demo", "-o", "jsonpath={.data.password}"}).out ==
        "czNjcmV0");
    CHECK(kubectl({"get", "deploy", "web", "-n", "demo", "-o",
                   "jsonpath={.spec.replicas}/{.metadata.generation}"})
              .out == "2/1");
    auto table = kubectl({"get", "deploy", "-n", "demo"});
    CHECK_THAT(table.out,
               Catch::StartsWith(
                   "NAME   READY   UP-TO-DATE   AVAILABLE   AGE\nweb    0/2     0            0"));
    auto dup = kubectl({"create", "namespace", "demo"});
    CHECK(dup.exit_code == 1);
    CHECK(dup.err == "Error from server (AlreadyExists): namespaces \"demo\" already exists\n");
  }

  SECTION("a stale resourceVersion is a Conflict with upstream's message") {
    const std::string file = box.path("cm.yaml");
    write_file(file, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n");
    REQUIRE(kubectl({"create"}, file).exit_code == 0);
    write_file(file,
               "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  resourceVersion: \"1\"\n");
    auto stale = kubectl({"replace"}, file);
    CHECK(stale.exit_code == 1);
    CHECK_THAT(stale.err,
               Catch::Contains("Error from server (Conflict): error when replacing \"" + file +
                               "\": Operation cannot be fulfilled on configmaps \"c\": the object "
                               "has been modified; please apply your changes to the latest version "
                               "and try again"));
  }

  SECTION("invalid names are 422 with the field and upstream's wording") {
    const std::string file = box.path("bad.yaml");
    write_file(file, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Bad_Name\n");
    auto bad = kubectl({"create"}, file);
    CHECK(bad.exit_code == 1);
    CHECK_THAT(
        bad.err,
        Catch::Contains(
            "The ConfigMap \"Bad_Name\" is invalid: metadata.name: Invalid value: \"Bad_Name\""));
  }

  SECTION("creating in a missing namespace is NotFound") {
    const std::string file = box.path("cm.yaml");
    write_file(file,
               "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: nowhere\n");
    auto r = kubectl({"create"}, file);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.err, Catch::Contains("namespaces \"nowhere\" not found"));
  }

  SECTION("services get cluster IPs and node ports; the clusterIP is immutable") {
    const std::string file = box.path("svc.yaml");
    write_file(
        file,
        "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  selector: {app: web}\n"
        "  ports: [{port: 80, targetPort: 8080}]\n---\napiVersion: v1\nkind: Service\n"
        "metadata: {name: np}\nspec:\n  type: NodePort\n  ports: [{port: 81}]\n");
    REQUIRE(kubectl({"create"}, file).exit_code == 0);
    auto svc = kubectl({"get", "svc"});
    CHECK_THAT(svc.out,
               Catch::Contains("kubernetes   ClusterIP   10.43.0.1    <none>        443/TCP"));
    CHECK_THAT(svc.out, Catch::Contains("np           NodePort    10.43."));
    CHECK_THAT(svc.out, Catch::Contains("81:30000/TCP"));
    write_file(file,
               "apiVersion: v1\nkind: Service\nmetadata: {name: odd}\nspec:\n  type: 5\n  ports: "
               "[{port: 80}]\n");
    auto odd = kubectl({"create"}, file);
    CHECK(odd.exit_code == 1);
    CHECK_THAT(odd.err, Catch::Contains("BadRequest"));
    auto ips = kubectl({"get", "svc", "-o", "jsonpath={.items[*].spec.clusterIP}"});
    CHECK(ips.out.find("10.43.0.1 ") == 0);
    auto change = kubectl(
        {"patch", "svc", "web", "--type", "merge", "-p", R"({"spec":{"clusterIP":"10.43.9.9"}})"});
    CHECK(change.exit_code == 1);
    CHECK_THAT(change.err,
               Catch::Contains("The Service \"web\" is invalid: spec.clusterIPs[0]: Invalid value: "
                               "[]string{\"10.43.9.9\"}: may not change once set"));
  }

  SECTION("-A, -o name, --chunk-size and field selectors") {
    auto all = kubectl({"get", "ns", "-o", "name", "--chunk-size", "1"});
    CHECK(all.out ==
          "namespace/default\nnamespace/kube-node-lease\nnamespace/kube-public\nnamespace/"
          "kube-system\n");
    auto one =
        kubectl({"get", "ns", "--field-selector", "metadata.name=kube-system", "-o", "name"});
    CHECK(one.out == "namespace/kube-system\n");
    auto bad = kubectl({"get", "ns", "--field-selector", "spec.nope=x"});
    CHECK(bad.exit_code == 1);
    CHECK_THAT(bad.err, Catch::Contains("field label not supported: spec.nope"));
    auto unknown = kubectl({"get", "flurbs"});
    CHECK(unknown.exit_code == 1);
    CHECK_THAT(unknown.err, Catch::Contains("the server doesn't have a resource type \"flurbs\""));
  }

  SECTION("an events.k8s.io Event is a core Event too, and back") {
    const std::string file = box.path("event.yaml");
    std::ofstream(file) << R"(apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: web.1}
eventTime: "2026-12-02T06:00:00.000000Z"
reportingController: example.com/tool
reportingInstance: tool-1
action: Testing
reason: Checked
regarding: {kind: Pod, name: web, namespace: default}
note: all good
type: Normal
)";
    REQUIRE(kubectl({"create"}, file).exit_code == 0);
    CHECK(kubectl({"get", "events.v1.", "web.1", "-o",
                   "jsonpath={.apiVersion} {.involvedObject.name} {.message} "
                   "{.reportingComponent}"})
              .out == "v1 web all good example.com/tool");
    CHECK(kubectl({"get", "events.v1.events.k8s.io", "web.1", "-o",
                   "jsonpath={.apiVersion} {.regarding.name} {.note}"})
              .out == "events.k8s.io/v1 web all good");
    // Field selectors in each API's own names.
    CHECK(kubectl({"get", "events.v1.events.k8s.io", "--field-selector", "regarding.name=web", "-o",
                   "name"})
              .out == "event.events.k8s.io/web.1\n");
    CHECK(kubectl({"get", "events", "--field-selector", "involvedObject.name=web", "-o", "name"})
              .out == "event/web.1\n");
  }

  SECTION("a paged list stays consistent while other writes go on") {
    for (int i = 0; i < 5; ++i)
      REQUIRE(kubectl({"create", "configmap", "page-" + std::to_string(i)}).exit_code == 0);
    auto first = kubectl({"get", "--raw", "/api/v1/namespaces/default/configmaps?limit=2"});
    REQUIRE(first.exit_code == 0);
    auto page = nlohmann::json::parse(first.out);
    const std::string rv = page["metadata"]["resourceVersion"];
    std::string token = page["metadata"]["continue"];
    std::vector<std::string> names;
    for (const auto& item : page["items"]) names.push_back(item["metadata"]["name"]);
    // Writes after the first page: the next pages are still the list at its revision.
    REQUIRE(kubectl({"create", "configmap", "page-new"}).exit_code == 0);
    REQUIRE(kubectl({"delete", "configmap", "page-4"}).exit_code == 0);
    while (!token.empty()) {
      auto next =
          kubectl({"get", "--raw",
                   "/api/v1/namespaces/default/configmaps?limit=2&continue=" + escaped(token)});
      INFO(next.err);
      REQUIRE(next.exit_code == 0);
      page = nlohmann::json::parse(next.out);
      CHECK(page["metadata"]["resourceVersion"] == rv);
      for (const auto& item : page["items"]) names.push_back(item["metadata"]["name"]);
      token = page["metadata"].value("continue", "");
    }
    // A token from no first page (its revision ahead of the server's) is refused.
    const std::string forged =
        "eyJydiI6OTk5OTk5LCJzdGFydCI6Ii9yZWdpc3RyeS9jb25maWdtYXBzL2Rl"
        "ZmF1bHQvcGFnZS0wIiwidiI6Im1ldGEuazhzLmlvL3YxIn0=";
    auto refused =
        kubectl({"get", "--raw",
                 "/api/v1/namespaces/default/configmaps?limit=2&continue=" + escaped(forged)});
    CHECK(refused.exit_code != 0);
    CHECK_THAT(refused.err, Catch::Contains("invalid continue token"));
    // The controller manager is off: no kube-root-ca.crt, just the five, page-4 included.
    CHECK(names == std::vector<std::string>{"page-0", "page-1", "page-2", "page-3", "page-4"});
  }
}

TEST_CASE("kubectl get -w streams changes until it is stopped") {
  const std::string dir = kubectl_dir();
  Sandbox box;
  RunningServer server(box, {"--disable-agent", "--disable-controller-manager"});
  REQUIRE(server.ready == "READY=1");
  std::map<std::string, std::string> env = box.env();
  env["KUBECONFIG"] = box.kubeconfig();
  ChildProcess watch({dir + "/kubectl.1.33", "get", "configmaps", "-w", "-o", "name"}, env,
                     box.path("watch"));
  std::this_thread::sleep_for(1s);
  Kubectl kubectl{box, dir + "/kubectl.1.33"};
  const std::string file = box.path("cm.yaml");
  write_file(file, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: watched\n");
  REQUIRE(kubectl({"create"}, file).exit_code == 0);
  REQUIRE(kubectl({"delete", "cm", "watched"}).exit_code == 0);
  std::this_thread::sleep_for(1s);
  CHECK_FALSE(watch.wait(10ms).has_value());  // still watching
  watch.signal(SIGTERM);
  watch.wait(5s);
  CHECK(watch.out() == "configmap/watched\nconfigmap/watched\n");
}

}  // namespace
}  // namespace k3c
