// kubectl behaviours beyond get/create/apply basics, against a real `k3c server` with kubectl
// 1.27 and 1.33: wait (--for=delete, --for=jsonpath, --for=condition set through the status
// subresource), delete (-l, --all, --wait on a finalizer removed later), apply --prune with
// a selector, get --chunk-size over several chunks, describe, cluster-info and get --raw.
#include <catch2/catch.hpp>
#include <thread>

#include "child_process.h"
#include "kubectl_runner.h"

namespace k3c {
namespace {

using namespace std::chrono_literals;

struct Kubectl : KubectlSandbox {
  using KubectlSandbox::KubectlSandbox;
  int started = 0;

  // A kubectl that keeps running (wait, delete --wait) while the test changes things.
  std::unique_ptr<testing::ChildProcess> start(std::vector<std::string> args) {
    return std::make_unique<testing::ChildProcess>(kubectl.argv(std::move(args)), kubectl.env(),
                                                   box.path("bg" + std::to_string(++started)));
  }
};

// The value on the line `<label>:   value` of kubectl describe's output (columns differ
// between kubectl versions), or "<missing>".
std::string field(const std::string& text, const std::string& label) {
  size_t at = text.rfind("\n" + label + ":", std::string::npos);
  if (text.rfind(label + ":", 0) == 0)
    at = 0;
  else if (at == std::string::npos)
    return "<missing>";
  else
    ++at;
  size_t start = text.find_first_not_of(' ', at + label.size() + 1);
  size_t end = text.find('\n', at);
  return text.substr(start, end - start);
}

constexpr const char* kFinalized = R"(apiVersion: v1
kind: ConfigMap
metadata: {name: held, finalizers: [example.com/hold]}
data: {a: "1"}
)";

TEST_CASE("kubectl wait: jsonpath, a condition set through /status, delete") {
  auto version = GENERATE(as<std::string>{}, "1.27", "1.33");
  INFO("kubectl " << version);
  Kubectl t(version);

  t.ok({"create", "configmap", "cfg", "--from-literal=mode=on"});
  CHECK(t.ok({"wait", "--for=jsonpath={.data.mode}=on", "configmap/cfg", "--timeout=10s"}) ==
        "configmap/cfg condition met\n");
  auto waiting =
      t.start({"wait", "--for=jsonpath={.data.mode}=off", "configmap/cfg", "--timeout=20s"});
  std::this_thread::sleep_for(500ms);
  t.ok({"patch", "configmap", "cfg", "--type=merge", "-p", R"({"data":{"mode":"off"}})"});
  CHECK(waiting->wait(20s) == 0);
  CHECK(waiting->out() == "configmap/cfg condition met\n");

  t.ok({"apply"}, t.file("pod.yaml", R"(apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: busybox}]
)"));
  auto ready = t.start({"wait", "--for=condition=Ready", "pod/p", "--timeout=20s"});
  std::this_thread::sleep_for(500ms);
  t.ok({"patch", "pod", "p", "--subresource=status", "--type=merge", "-p",
        R"({"status":{"conditions":[{"type":"Ready","status":"True"}]}})"});
  CHECK(ready->wait(20s) == 0);
  CHECK(ready->out() == "pod/p condition met\n");

  t.ok({"apply"}, t.file("held.yaml", kFinalized));
  t.ok({"delete", "configmap", "held", "--wait=false"});
  auto gone = t.start({"wait", "--for=delete", "configmap/held", "--timeout=20s"});
  std::this_thread::sleep_for(500ms);
  CHECK_FALSE(gone->wait(0ms).has_value());  // still held by its finalizer
  t.ok({"patch", "configmap", "held", "--type=merge", "-p", R"({"metadata":{"finalizers":null}})"});
  CHECK(gone->wait(20s) == 0);
  CHECK(gone->out() == "configmap/held condition met\n");
  // Waiting for the deletion of something already gone is met at once.
  auto absent = t.kubectl({"wait", "--for=delete", "configmap/held", "--timeout=5s"});
  CHECK(absent.exit_code == 0);
}

TEST_CASE("kubectl delete: -l, --all, --wait on a finalizer removed later") {
  auto version = GENERATE(as<std::string>{}, "1.27", "1.33");
  INFO("kubectl " << version);
  Kubectl t(version);
  for (const char* name : {"a", "b", "c"}) t.ok({"create", "configmap", name});
  t.ok({"label", "configmap", "a", "b", "app=x"});
  std::string by_label = t.ok({"delete", "configmap", "-l", "app=x"});
  CHECK(by_label.find("configmap \"a\" deleted") != std::string::npos);
  CHECK(by_label.find("configmap \"b\" deleted") != std::string::npos);
  CHECK(by_label.find("\"c\"") == std::string::npos);
  // (Listings name what they check: a controller manager adds kube-root-ca.crt.)
  CHECK(t.kubectl({"get", "configmap", "a"}).exit_code == 1);
  CHECK(t.ok({"get", "configmap", "c", "-o", "name"}) == "configmap/c\n");
  CHECK(t.ok({"delete", "configmap", "--all"}).find("configmap \"c\" deleted") !=
        std::string::npos);
  auto none = t.kubectl({"get", "configmap", "c"});
  CHECK(none.err == "Error from server (NotFound): configmaps \"c\" not found\n");

  t.ok({"apply"}, t.file("held.yaml", kFinalized));
  auto deleting = t.start({"delete", "configmap", "held", "--timeout=20s"});
  std::this_thread::sleep_for(1s);
  CHECK_FALSE(deleting->wait(0ms).has_value());  // kubectl waits for the finalizer
  CHECK(t.ok({"get", "configmap", "held", "-o", "jsonpath={.metadata.deletionTimestamp}"}) != "");
  t.ok({"patch", "configmap", "held", "--type=json", "-p",
        R"([{"op":"remove","path":"/metadata/finalizers"}])"});
  CHECK(deleting->wait(20s) == 0);
  CHECK(deleting->out().find("configmap \"held\" deleted") != std::string::npos);
  CHECK(t.kubectl({"get", "configmap", "held"}).exit_code == 1);
}

TEST_CASE("kubectl apply --prune with a selector") {
  auto version = GENERATE(as<std::string>{}, "1.27", "1.33");
  INFO("kubectl " << version);
  Kubectl t(version);
  auto cm = [](const std::string& name) {
    return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + name +
           ", labels: {app: x}}\ndata: {k: v}\n";
  };
  t.ok({"create", "configmap", "other", "--from-literal=k=v"});
  t.ok({"label", "configmap", "other", "app=y"});
  // kubectl itself warns that pruning without --prune-allowlist is deprecated (as it does
  // against any cluster); nothing else may show on stderr.
  auto apply_prune = [&](const std::string& file) {
    auto r = t.kubectl({"apply", "--prune", "-l", "app=x"}, file);
    CHECK(r.exit_code == 0);
    CHECK((r.err.empty() ||
           r.err.find("] Deprecated: kubectl apply will no longer prune") != std::string::npos));
    CHECK(r.err.find("rror") == std::string::npos);
    return r.out;
  };
  std::string both = t.file("both.yaml", cm("one") + "---\n" + cm("two"));
  CHECK(apply_prune(both) == "configmap/one created\nconfigmap/two created\n");
  std::string one = t.file("one.yaml", cm("one"));
  CHECK(apply_prune(one) == "configmap/one unchanged\nconfigmap/two pruned\n");
  CHECK(t.ok({"get", "configmap", "-l", "app", "-o", "name"}) ==
        "configmap/one\nconfigmap/other\n");
}

TEST_CASE("kubectl get --chunk-size over several chunks") {
  auto version = GENERATE(as<std::string>{}, "1.27", "1.33");
  INFO("kubectl " << version);
  Kubectl t(version);
  for (int i = 0; i < 5; ++i) t.ok({"create", "configmap", "c" + std::to_string(i)});
  t.ok({"label", "configmap", "c0", "c1", "c2", "c3", "c4", "chunk=yes"});
  std::string table = t.ok({"get", "configmap", "-l", "chunk=yes", "--chunk-size=2"});
  CHECK(table.rfind("NAME   DATA   AGE\n", 0) == 0);
  for (int i = 0; i < 5; ++i)
    CHECK(table.find("c" + std::to_string(i) + "     0      ") != std::string::npos);
  // One header only, whatever the number of pages.
  CHECK(table.find("NAME", 1) == std::string::npos);
  CHECK(t.ok({"get", "configmap", "-l", "chunk=yes", "--chunk-size=2", "-o", "name"}) ==
        "configmap/c0\nconfigmap/c1\nconfigmap/c2\nconfigmap/c3\nconfigmap/c4\n");
}

TEST_CASE("kubectl describe, cluster-info, get --raw") {
  auto version = GENERATE(as<std::string>{}, "1.27", "1.33");
  INFO("kubectl " << version);
  Kubectl t(version);
  t.ok({"create", "deployment", "web", "--image=nginx:1.27", "--replicas=2"});
  t.ok({"expose", "deployment", "web", "--port=80"});
  t.ok({"create", "configmap", "cfg", "--from-literal=mode=on"});
  t.ok({"apply"}, t.file("things.yaml", R"(apiVersion: v1
kind: Pod
metadata: {name: p, labels: {app: p}}
spec:
  containers: [{name: c, image: busybox, command: [sleep, "3600"]}]
---
apiVersion: v1
kind: Node
metadata: {name: edge-1, labels: {kubernetes.io/hostname: edge-1}}
)"));
  std::string pod = t.ok({"describe", "pod", "p"});
  CHECK(pod.rfind("Name:             p\nNamespace:        default\nPriority:         0\n", 0) == 0);
  CHECK(pod.find("Containers:\n  c:\n    Image:") != std::string::npos);
  CHECK(field(pod, "Tolerations") == "node.kubernetes.io/not-ready:NoExecute op=Exists for 300s");
  CHECK(field(pod, "Priority") == "0");
  std::string deploy = t.ok({"describe", "deployment", "web"});
  CHECK(deploy.rfind("Name:                   web\nNamespace:              default\n", 0) == 0);
  CHECK(deploy.find("StrategyType:           RollingUpdate\n") != std::string::npos);
  CHECK(deploy.find("RollingUpdateStrategy:  25% max unavailable, 25% max surge\n") !=
        std::string::npos);
  std::string svc = t.ok({"describe", "service", "web"});
  CHECK(field(svc, "Selector") == "app=web");
  CHECK(field(svc, "Port") == "<unset>  80/TCP");
  CHECK(field(svc, "Type") == "ClusterIP");
  std::string node = t.ok({"describe", "node", "edge-1"});
  CHECK(node.rfind("Name:               edge-1\n", 0) == 0);
  std::string ns = t.ok({"describe", "namespace", "default"});
  CHECK(ns ==
        "Name:         default\nLabels:       kubernetes.io/metadata.name=default\n"
        "Annotations:  <none>\nStatus:       Active\n\nNo resource quota.\n\n"
        "No LimitRange resource.\n");
  std::string cm = t.ok({"describe", "configmap", "cfg"});
  CHECK(cm.find("Data\n====\nmode:\n----\non") != std::string::npos);

  std::string info = t.ok({"cluster-info"});
  CHECK(info.find("Kubernetes control plane") != std::string::npos);
  // (kubectl colours the name and address.)
  CHECK(info.find(" is running at ") != std::string::npos);
  CHECK(info.find("https://127.0.0.1:" + std::to_string(t.box.port())) != std::string::npos);

  std::string raw = t.ok({"get", "--raw", "/api/v1/namespaces"});
  CHECK(raw.find("\"kind\":\"NamespaceList\"") != std::string::npos);
  CHECK(raw.find("\"name\":\"kube-system\"") != std::string::npos);
}

}  // namespace
}  // namespace k3c
