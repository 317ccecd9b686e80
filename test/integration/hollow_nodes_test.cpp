// `k3c bench hollow-nodes` against a real server (agent roles off), driven by kubectl 1.33:
// the nodes register Ready with pod CIDRs, a Deployment's pods run on them with IPs from their
// node's range, a graceful deletion is confirmed and the pod replaced, and after SIGTERM the
// tool exits 0 and the nodes go Unknown. Bad input is refused with a clear error.
#include <signal.h>

#include <map>
#include <set>
#include <sstream>

#include "kubectl_runner.h"

namespace k3c {
namespace {

using namespace std::chrono_literals;

std::vector<std::string> hollow_args(const Sandbox& box, std::vector<std::string> extra) {
  std::vector<std::string> args = {K3C_BINARY, "bench", "hollow-nodes", "--kubeconfig",
                                   box.kubeconfig()};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// "a.b.c.d" inside "a.b.c.0/24" (the /24 node IPAM gives by default).
bool in_cidr(const std::string& ip, const std::string& cidr) {
  const std::string prefix = cidr.substr(0, cidr.rfind('.') + 1);
  return cidr.ends_with(".0/24") && ip.starts_with(prefix) && ip.size() > prefix.size();
}

constexpr const char* kDeployment = R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 6
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: registry.example/web:1
        resources: {requests: {cpu: 100m, memory: 64Mi}}
)";

TEST_CASE("hollow nodes run a Deployment's pods and go Unknown when the tool stops") {
  KubectlSandbox session("1.33", {"--kube-controller-manager-arg=node-monitor-period=500ms",
                                  "--kube-controller-manager-arg=node-monitor-grace-period=4s"});
  auto& kubectl = session.kubectl;
  ChildProcess tool(hollow_args(session.box, {"--count", "3"}), session.box.env(),
                    session.box.path("hollow"));
  auto jsonpath = [&](std::vector<std::string> args, const std::string& path) {
    args.insert(args.begin(), "get");
    args.insert(args.end(), {"-o", "jsonpath=" + path});
    return kubectl(args).out;
  };
  const std::string ready_and_cidr =
      "{range .items[*]}{.metadata.name} "
      "{.status.conditions[?(@.type==\"Ready\")].status} {.spec.podCIDR}{\"\\n\"}{end}";
  std::map<std::string, std::string> cidrs;
  REQUIRE(eventually(
      [&] {
        cidrs.clear();
        for (const std::string& line : lines(jsonpath({"nodes"}, ready_and_cidr))) {
          std::istringstream in(line);
          std::string name, ready, cidr;
          in >> name >> ready >> cidr;
          if (ready == "True" && !cidr.empty()) cidrs[name] = cidr;
        }
        return cidrs.size() == 3;
      },
      30s));
  INFO(tool.err());
  CHECK(cidrs.count("hollow-0") == 1);
  CHECK(cidrs.count("hollow-2") == 1);
  CHECK(jsonpath({"node", "hollow-1"}, "{.metadata.labels.kubernetes\\.io/hostname}") ==
        "hollow-1");
  CHECK(jsonpath({"node", "hollow-1"}, "{.status.capacity.cpu} {.status.capacity.pods}") ==
        "4 110");
  CHECK(jsonpath({"node", "hollow-1"}, "{.status.nodeInfo.kubeletVersion}").starts_with("v1."));
  CHECK(!jsonpath({"lease", "-n", "kube-node-lease", "hollow-1"}, "{.spec.renewTime}").empty());

  session.ok({"apply"}, session.file("web.yaml", kDeployment));
  auto rollout = kubectl({"rollout", "status", "deployment/web", "--timeout=60s"});
  INFO(rollout.err << tool.err());
  REQUIRE(rollout.exit_code == 0);

  const std::string pod_rows =
      "{range .items[*]}{.metadata.name} {.spec.nodeName} {.status.phase} {.status.podIP} "
      "{.status.hostIP} {.status.containerStatuses[0].ready} "
      "{.status.containerStatuses[0].containerID}{\"\\n\"}{end}";
  std::set<std::string> nodes_used;
  std::string victim;
  const auto rows = lines(jsonpath({"pods", "-l", "app=web"}, pod_rows));
  CHECK(rows.size() == 6);
  std::set<std::string> ips;
  for (const std::string& row : rows) {
    INFO(row);
    std::istringstream in(row);
    std::string name, node, phase, ip, host_ip, ready, container_id;
    in >> name >> node >> phase >> ip >> host_ip >> ready >> container_id;
    CHECK(phase == "Running");
    CHECK(ready == "true");
    CHECK(in_cidr(ip, cidrs[node]));
    CHECK(host_ip.starts_with("172.16."));
    CHECK(container_id.starts_with("k3c://"));
    ips.insert(ip);
    nodes_used.insert(node);
    victim = name;
  }
  CHECK(ips.size() == 6);         // no address handed out twice
  CHECK(nodes_used.size() == 3);  // the scheduler spreads them

  // A graceful deletion: the hollow kubelet confirms it (grace 0), the ReplicaSet replaces it.
  session.ok({"delete", "pod", victim, "--wait=true", "--timeout=30s"});
  CHECK(kubectl({"get", "pod", victim}).exit_code != 0);
  CHECK(eventually(
      [&] {
        auto now = lines(jsonpath({"pods", "-l", "app=web"},
                                  "{range .items[*]}{.status.phase}{\"\\n\"}{end}"));
        return now.size() == 6 && std::all_of(now.begin(), now.end(),
                                              [](const auto& p) { return p == "Running"; });
      },
      30s));

  // SIGTERM: the tool stops heartbeating and exits 0; the nodes' silence makes them Unknown.
  tool.signal(SIGTERM);
  auto code = tool.wait(20s);
  REQUIRE(code.has_value());
  CHECK(*code == 0);
  CHECK(eventually(
      [&] {
        return jsonpath({"nodes"}, "{.items[*].status.conditions[?(@.type==\"Ready\")].status}") ==
               "Unknown Unknown Unknown";
      },
      30s));
}

TEST_CASE("hollow-nodes refuses bad input with a clear error and a non-zero exit") {
  Sandbox box;
  auto run = [&](std::vector<std::string> extra) { return box.run(hollow_args(box, extra)); };
  auto missing = run({"--count", "1"});  // the kubeconfig does not exist
  CHECK(missing.exit_code != 0);
  CHECK(missing.err.find("kubeconfig " + box.kubeconfig() + " does not exist") !=
        std::string::npos);

  write_file(box.kubeconfig(), "this: [is not, a kubeconfig\n");
  auto garbage = run({"--count", "1"});
  CHECK(garbage.exit_code != 0);
  CHECK(garbage.err.find("not valid YAML") != std::string::npos);

  auto zero = run({"--count", "0"});
  CHECK(zero.exit_code != 0);
  CHECK(zero.err.find("--count must be at least 1") != std::string::npos);
  auto negative = run({"--count=-3"});
  CHECK(negative.exit_code != 0);
  CHECK(negative.err.find("--count must be at least 1") != std::string::npos);
  auto memory = run({"--count", "1", "--memory", "8Gb"});
  CHECK(memory.exit_code != 0);
  CHECK(memory.err.find("--memory \"8Gb\" is not a positive quantity") != std::string::npos);
}

}  // namespace
}  // namespace k3c
