// Server-side printing seen through the real kubectl (1.27 and 1.33): `kubectl get <kind>`
// and `-o wide` print upstream's columns and cells for objects of many kinds, and
// `kubectl get -w` prints later events in the same columns (Table watch events).
#include <catch2/catch.hpp>
#include <regex>
#include <thread>

#include "kubectl_runner.h"

namespace k3c {
namespace {

// Objects of many kinds, as a user would apply them.
const char* kManifest = R"(apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {a: "1", b: "2"}
---
apiVersion: v1
kind: Secret
metadata: {name: creds}
type: Opaque
data: {password: czNjcmV0}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
---
apiVersion: v1
kind: Service
metadata: {name: db}
spec:
  type: ExternalName
  externalName: db.example.com
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: "0 3 * * *"
  timeZone: Etc/UTC
  suspend: false
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers: [{name: main, image: busybox}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: reader}
rules: [{apiGroups: [""], resources: [pods], verbs: [get]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: read}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: reader}
subjects:
- {kind: User, name: alice, apiGroup: rbac.authorization.k8s.io}
- {kind: ServiceAccount, name: bot, namespace: default}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: local
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: rancher.io/local-path
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
preemptionPolicy: Never
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec:
  minAvailable: 1
  selector: {matchLabels: {app: web}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web}
spec:
  ingressClassName: traefik
  tls: [{hosts: [web.example.com]}]
  rules:
  - host: web.example.com
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny}
spec:
  podSelector: {matchLabels: {app: web}}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv1}
spec:
  capacity: {storage: 5Gi}
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  storageClassName: local
  hostPath: {path: /tmp/pv1}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 5
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 80}}
---
apiVersion: v1
kind: PodTemplate
metadata: {name: tmpl}
template:
  metadata: {labels: {app: web}}
  spec:
    containers: [{name: main, image: busybox}]
)";

// A printed line against an expectation in which "~" stands for an age ("5s", "12s") and
// "%" for any text.
bool line_matches(const std::string& line, const std::string& expected) {
  std::string pattern;
  for (char ch : expected) {
    if (ch == '~') {
      pattern += R"(\d{1,2}s ?)";
    } else if (ch == '%') {
      pattern += ".*";
    } else if (std::string(R"(\^$.|?*+()[]{})").find(ch) != std::string::npos) {
      pattern += std::string("\\") + ch;
    } else {
      pattern += ch;
    }
  }
  return std::regex_match(line, std::regex(pattern + " *"));
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// `kubectl get` prints exactly `expected` (one entry per line; "~" marks ages).
void check_get(const KubectlRunner& kubectl, std::vector<std::string> args,
               const std::vector<std::string>& expected) {
  args.insert(args.begin(), "get");
  auto r = kubectl(args);
  INFO("kubectl " << Catch::Detail::stringify(args) << "\n" << r.out << r.err);
  REQUIRE(r.exit_code == 0);
  auto lines = lines_of(r.out);
  REQUIRE(lines.size() == expected.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    INFO("line " << i << ": [" << lines[i] << "] expected [" << expected[i] << "]");
    CHECK(line_matches(lines[i], expected[i]));
  }
}

TEST_CASE("kubectl get prints upstream's columns for each kind") {
  auto version = GENERATE(as<std::string>{}, "1.27", "1.33");
  INFO("kubectl " << version);
  // Without the local-path StorageClass: the test's own class is the only one listed.
  KubectlSandbox session(version, {"--disable=local-storage"});
  Sandbox& box = session.box;
  const KubectlRunner& kubectl = session.kubectl;
  const std::string file = box.path("objects.yaml");
  write_file(file, kManifest);
  auto applied = kubectl({"apply", "-f", file});
  INFO(applied.out << applied.err);
  REQUIRE(applied.exit_code == 0);

  check_get(kubectl, {"configmap", "settings"}, {"NAME       DATA   AGE", "settings   2      ~"});
  check_get(kubectl, {"secret", "creds"},
            {"NAME    TYPE     DATA   AGE", "creds   Opaque   1      ~"});
  check_get(kubectl, {"svc", "db", "-o", "wide"},
            {"NAME   TYPE           CLUSTER-IP   EXTERNAL-IP      PORT(S)   AGE   SELECTOR",
             "db     ExternalName   <none>       db.example.com   <none>    ~   <none>"});
  check_get(kubectl, {"cronjob"},
            {"NAME      SCHEDULE    TIMEZONE   SUSPEND   ACTIVE   LAST SCHEDULE   AGE",
             "nightly   0 3 * * *   Etc/UTC    False     0        <none>          ~"});
  check_get(kubectl, {"cronjob", "-o", "wide"},
            {"NAME      SCHEDULE    TIMEZONE   SUSPEND   ACTIVE   LAST SCHEDULE   AGE   CONTAINERS"
             "   IMAGES    SELECTOR",
             "nightly   0 3 * * *   Etc/UTC    False     0        <none>          ~   main         "
             "busybox   <none>"});
  check_get(kubectl, {"role"}, {"NAME     CREATED AT", "reader   20%Z"});
  check_get(kubectl, {"rolebinding", "-o", "wide"},
            {"NAME   ROLE          AGE   USERS   GROUPS   SERVICEACCOUNTS",
             "read   Role/reader   ~   alice            default/bot"});
  check_get(kubectl, {"storageclass"},
            {"NAME              PROVISIONER             RECLAIMPOLICY   VOLUMEBINDINGMODE      "
             "ALLOWVOLUMEEXPANSION   AGE",
             "local (default)   rancher.io/local-path   Delete          WaitForFirstConsumer   "
             "false                  ~"});
  check_get(kubectl, {"priorityclass", "high"},
            {"NAME   VALUE   GLOBAL-DEFAULT   AGE   PREEMPTIONPOLICY",
             "high   1000    false            ~   Never"});
  check_get(kubectl, {"pdb"},
            {"NAME   MIN AVAILABLE   MAX UNAVAILABLE   ALLOWED DISRUPTIONS   AGE",
             "web    1               N/A               0                     ~"});
  check_get(kubectl, {"ingress"},
            {"NAME   CLASS     HOSTS             ADDRESS   PORTS     AGE",
             "web    traefik   web.example.com             80, 443   ~"});
  check_get(kubectl, {"networkpolicy"}, {"NAME   POD-SELECTOR   AGE", "deny   app=web        ~"});
  // The volume binder makes the new, unclaimed volume Available.
  REQUIRE(eventually([&] {
    return kubectl({"get", "pv", "pv1", "-o", "jsonpath={.status.phase}"}).out == "Available";
  }));
  check_get(kubectl, {"pv", "-o", "wide"},
            {"NAME   CAPACITY   ACCESS MODES   RECLAIM POLICY   STATUS      CLAIM   STORAGECLASS   "
             "VOLUMEATTRIBUTESCLASS   REASON   AGE   VOLUMEMODE",
             "pv1    5Gi        RWO            Retain           Available           local          "
             "<unset>                          ~   <unset>"});
  check_get(kubectl, {"hpa"},
            {"NAME   REFERENCE        TARGETS              MINPODS   MAXPODS   REPLICAS   AGE",
             "web    Deployment/web   cpu: <unknown>/80%   1         5         0          ~"});
  check_get(kubectl, {"podtemplate"},
            {"NAME   CONTAINERS   IMAGES    POD LABELS", "tmpl   main         busybox   app=web"});
}

// Waits (at most `timeout`) until the child has printed at least `n` lines.
std::vector<std::string> wait_for_lines(const ChildProcess& child, size_t n,
                                        std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  auto lines = lines_of(child.out());
  while (lines.size() < n && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(100ms);
    lines = lines_of(child.out());
  }
  return lines;
}

bool any_line_matches(const std::vector<std::string>& lines, const std::string& expected) {
  for (const auto& l : lines)
    if (line_matches(l, expected)) return true;
  return false;
}

TEST_CASE("kubectl get -w prints watch events in the table's columns") {
  auto version = GENERATE(as<std::string>{}, "1.27", "1.33");
  INFO("kubectl " << version);
  KubectlSandbox session(version);
  Sandbox& box = session.box;
  const KubectlRunner& kubectl = session.kubectl;
  const std::string pod = box.path("pod.yaml");
  auto pod_yaml = [](const std::string& name) {
    return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
           ", namespace: w}\nspec:\n  containers: [{name: main, image: busybox}]\n";
  };
  REQUIRE(kubectl({"create", "namespace", "w"}).exit_code == 0);
  write_file(pod, pod_yaml("first"));
  REQUIRE(kubectl({"create", "-f", pod}).exit_code == 0);

  // The pods of namespace w, plainly and with -o wide; the deployments of default.
  ChildProcess pods(kubectl.argv({"get", "pods", "-n", "w", "-w"}), kubectl.env(),
                    box.path("watch-pods"));
  ChildProcess wide(kubectl.argv({"get", "pods", "-n", "w", "-w", "-o", "wide"}), kubectl.env(),
                    box.path("watch-wide"));
  ChildProcess deploys(kubectl.argv({"get", "deploy", "-w"}), kubectl.env(),
                       box.path("watch-deploy"));
  REQUIRE(wait_for_lines(pods, 2, 15s).size() >= 2);
  REQUIRE(wait_for_lines(wide, 2, 15s).size() >= 2);

  write_file(pod, pod_yaml("second"));
  REQUIRE(kubectl({"create", "-f", pod}).exit_code == 0);
  REQUIRE(kubectl({"label", "pod", "first", "-n", "w", "tier=web"}).exit_code == 0);
  REQUIRE(kubectl({"create", "deployment", "web", "--image=busybox", "--replicas=2"}).exit_code ==
          0);
  auto pod_lines = wait_for_lines(pods, 4, 15s);
  auto wide_lines = wait_for_lines(wide, 4, 15s);
  auto deploy_lines = wait_for_lines(deploys, 2, 15s);
  std::this_thread::sleep_for(500ms);
  CHECK_FALSE(pods.wait(10ms).has_value());  // still watching
  pod_lines = lines_of(pods.out());
  wide_lines = lines_of(wide.out());
  deploy_lines = lines_of(deploys.out());
  INFO("pods:\n"
       << pods.out() << pods.err() << "wide:\n"
       << wide.out() << wide.err() << "deployments:\n"
       << deploys.out() << deploys.err());

  // One header, then rows in the same columns: the list's and every event's.
  REQUIRE(pod_lines.size() >= 4);
  CHECK(line_matches(pod_lines[0], "NAME    READY   STATUS    RESTARTS   AGE"));
  CHECK(line_matches(pod_lines[1], "first   0/1     Pending   0          ~"));
  for (size_t i = 2; i < pod_lines.size(); ++i) {
    INFO("line " << i << ": " << pod_lines[i]);
    CHECK(std::regex_match(pod_lines[i], std::regex(R"((first|second) +0/1 +Pending +0 +\d+s *)")));
  }
  CHECK(any_line_matches(pod_lines, "second%"));

  REQUIRE(wide_lines.size() >= 4);
  CHECK(
      line_matches(wide_lines[0],
                   "NAME    READY   STATUS    RESTARTS   AGE   IP       NODE     NOMINATED NODE   "
                   "READINESS GATES"));
  CHECK(line_matches(wide_lines[1],
                     "first   0/1     Pending   0          ~   <none>   <none>   <none>           "
                     "<none>"));
  for (size_t i = 2; i < wide_lines.size(); ++i) {
    INFO("line " << i << ": " << wide_lines[i]);
    CHECK(std::regex_match(
        wide_lines[i],
        std::regex(R"((first|second) +0/1 +Pending +0 +\d+s +<none> +<none> +<none> +<none> *)")));
  }

  REQUIRE(deploy_lines.size() >= 2);
  CHECK(line_matches(deploy_lines[0], "NAME   READY   UP-TO-DATE   AVAILABLE   AGE"));
  for (size_t i = 1; i < deploy_lines.size(); ++i) {
    INFO("line " << i << ": " << deploy_lines[i]);
    CHECK(std::regex_match(deploy_lines[i], std::regex(R"(web +0/2 +[0-2] +0 +\d+s *)")));
  }
  for (ChildProcess* child : {&pods, &wide, &deploys}) {
    child->signal(SIGTERM);
    child->wait(5s);
  }
}

// On the wire: the first Table watch event carries the column definitions, later ones
// `"columnDefinitions":null` (upstream's watch encoder), and includeObject=None drops the row
// objects.
TEST_CASE("Table watch events carry the columns only once") {
  const std::string dir = kubectl_dir();
  REQUIRE_FALSE(dir.empty());
  Sandbox box;
  RunningServer server(box, {"--disable-agent"});
  REQUIRE(server.ready == "READY=1");
  KubectlRunner kubectl{box, dir + "/kubectl.1.33"};
  REQUIRE(kubectl({"create", "configmap", "one"}).exit_code == 0);
  REQUIRE(kubectl({"create", "configmap", "two"}).exit_code == 0);
  // The admin credentials as files for curl.
  for (const auto& [field, file] : std::vector<std::pair<std::string, std::string>>{
           {"clusters[0].cluster.certificate-authority-data", "ca.pem"},
           {"users[0].user.client-certificate-data", "cert.pem"},
           {"users[0].user.client-key-data", "key.pem"}}) {
    auto v = kubectl({"config", "view", "--raw", "-o", "jsonpath={." + field + "}"});
    REQUIRE(v.exit_code == 0);
    write_file(box.path(file + ".b64"), v.out);
    REQUIRE(
        box.run({"/bin/sh", "-c", "base64 -d " + box.path(file + ".b64") + " > " + box.path(file)})
            .exit_code == 0);
  }
  std::string url = "https://127.0.0.1:" + std::to_string(box.port()) +
                    "/api/v1/namespaces/default/configmaps?watch=true&includeObject=None";
  auto watch =
      box.run({"/usr/bin/curl", "-sS", "--max-time", "3", "--cacert", box.path("ca.pem"), "--cert",
               box.path("cert.pem"), "--key", box.path("key.pem"), "-H",
               "Accept: application/json;as=Table;v=v1;g=meta.k8s.io,application/json", url});
  INFO(watch.out << watch.err);
  auto events = lines_of(watch.out);
  REQUIRE(events.size() >= 2);  // at least the two config maps, as synthetic ADDED events
  CHECK(events[0].find(R"({"type":"ADDED","object":{"apiVersion":"meta.k8s.io/v1")") == 0);
  CHECK(events[0].find(R"("columnDefinitions":[{)") != std::string::npos);
  for (size_t i = 1; i < events.size(); ++i) {
    INFO("event " << i);
    CHECK(events[i].find(R"("columnDefinitions":null)") != std::string::npos);
    CHECK(events[i].find(R"("kind":"Table")") != std::string::npos);
  }
  for (const auto& e : events) CHECK(e.find("PartialObjectMetadata") == std::string::npos);
  CHECK(watch.out.find(R"("cells":["two",0,)") != std::string::npos);
}

}  // namespace
}  // namespace k3c
