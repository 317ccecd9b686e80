// `k3c agent` joining a `k3c server` (root only): the server runs in namespaces of its own
// (node_session.h); the agent shares the server's network namespace (two kubelets, on ports
// 10250 and 10251) and has mount and PID namespaces of its own, its own data dir, node name
// and cgroup root. Covered: the join (node registers and goes Ready), a pod pinned to the
// agent's node runs from an image imported from the agent's own airgap directory; kubectl
// logs (-f too), exec (WebSocket and SPDY) and port-forward reach the agent's kubelet
// through the apiserver over HTTPS, and so does the node proxy (nodes/agent-1/proxy/...,
// node_proxy_checks.h); a node name cannot be taken over by another machine; a bad token and
// a CA hash mismatch are refused; SIGTERM stops the agent cleanly, after which its kubelet
// answers a clear 5xx through the apiserver (logs and the node proxy). A static pod written
// while the server does not answer (frozen) runs on the agent; its mirror follows.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "images/test_images.h"
#include "node_proxy_checks.h"
#include "node_session.h"

namespace k3c {
namespace {

using namespace std::chrono_literals;

std::string skip_reason() {
  std::string why = namespaces_unavailable();
  if (why.empty() && access(testing::kBusyboxPath, X_OK) != 0)
    why = "Debian's busybox-static (/bin/busybox) is not installed";
  if (!why.empty()) WARN("integration.agent skipped: " << why);
  return why;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

bool stage_busybox(const std::string& data_dir) {
  const std::string dir = data_dir + "/agent/images";
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/busybox.tar", std::ios::binary) << testing::tar_of(
      testing::docker_archive_files(testing::busybox_image("docker.io/library/busybox:1")),
      testing::Compression::kNone);
  return true;
}

// `argv` in the server's network namespace, with mount and PID namespaces of its own: every
// agent a test starts runs so, also those expected to fail before their worker roles start.
std::vector<std::string> in_agent_namespaces(const RunningServer& server,
                                             const std::vector<std::string>& argv) {
  std::vector<std::string> wrapped = server.enter_prefix();
  wrapped.insert(wrapped.end(), {"/usr/bin/unshare", "--mount", "--pid", "--fork", "--kill-child",
                                 "--propagation", "private", "--mount-proc"});
  wrapped.insert(wrapped.end(), argv.begin(), argv.end());
  return wrapped;
}

// `k3c agent` in the server's network namespace, with mount and PID namespaces of its own
// (its pods die with it when the test ends), its data dir and cgroup root in `box`.
struct RunningAgent {
  RunningAgent(const Sandbox& box, const RunningServer& server, std::vector<std::string> flags)
      : listener(box.path("agent-notify.sock")),
        process(argv(box, server, std::move(flags)), env(box), box.path("agent")) {}

  std::vector<std::string> argv(const Sandbox& box, const RunningServer& server,
                                std::vector<std::string> flags) {
    std::vector<std::string> args = {K3C_BINARY,
                                     "agent",
                                     "-d",
                                     box.path("agent-data"),
                                     "--kubelet-arg=port=10251",
                                     "--kubelet-arg=cgroup-root=/" + cgroups.name(),
                                     "--kubelet-arg=pod-logs-dir=" + box.path("agent-logs"),
                                     "--kubelet-arg=eviction-hard=memory.available<100Mi"};
    args.insert(args.end(), flags.begin(), flags.end());
    return in_agent_namespaces(server, args);
  }
  static std::map<std::string, std::string> env(const Sandbox& box) {
    auto e = box.env();
    e["NOTIFY_SOCKET"] = box.path("agent-notify.sock");
    return e;
  }
  // k3c itself: unshare's child.
  pid_t agent_pid() const {
    const std::string pid = std::to_string(process.pid());
    std::ifstream children("/proc/" + pid + "/task/" + pid + "/children");
    pid_t child = 0;
    children >> child;
    return child;
  }

  NotifyListener listener;
  TestCgroupRoot cgroups;  // before `process`: removed after the agent is gone
  ChildProcess process;
};

std::string server_url(const Sandbox& box) {
  return "https://127.0.0.1:" + std::to_string(box.port());
}

// A server (node server-1) and an agent (node agent-1, label role=edge) joined to it, both
// Ready, the busybox image in each one's own airgap directory.
struct JoinedCluster {
  explicit JoinedCluster(std::vector<std::string> agent_flags = {})
      : staged(stage_busybox(box.data_dir())), s(box, {"--node-name", "server-1"}) {
    REQUIRE(eventually([&] { return s.node_ready("server-1"); }, 60s));
    stage_busybox(box.path("agent-data"));
    token = slurp(box.data_dir() + "/server/token");
    // No --node-ip: the agent names the address the kubelet reports (here 127.0.0.1).
    std::vector<std::string> flags = {"--server",    server_url(box), "--token",      token,
                                      "--node-name", "agent-1",       "--node-label", "role=edge"};
    flags.insert(flags.end(), agent_flags.begin(), agent_flags.end());
    agent = std::make_unique<RunningAgent>(box, s.server, std::move(flags));
    INFO(agent->process.err());
    REQUIRE(agent->listener.receive(60s) == "READY=1");
    REQUIRE(eventually([&] { return s.node_ready("agent-1"); }, 60s));
  }
  // A pod running `script` on `node`.
  void run_pod(const std::string& name, const std::string& node, const std::string& script) {
    s.ok({"run", name, "--image=busybox:1", "--restart=Never",
          "--overrides={\"spec\":{\"nodeSelector\":{\"kubernetes.io/hostname\":\"" + node + "\"}}}",
          "--", "sh", "-c", script});
    REQUIRE(
        eventually([&] { return s.jsonpath("pod/" + name, "{.status.phase}") == "Running"; }, 90s));
  }
  Sandbox box;
  bool staged;  // before `s`: the server imports its images at start
  NodeSession s;
  std::string token;
  std::unique_ptr<RunningAgent> agent;
};

TEST_CASE("an agent joins; a pod on its node runs; logs and exec reach its kubelet") {
  if (!skip_reason().empty()) return;
  JoinedCluster c;
  Sandbox& box = c.box;
  NodeSession& s = c.s;
  RunningAgent& agent = *c.agent;
  const std::string& token = c.token;
  CHECK(s.jsonpath("node/agent-1", "{.metadata.labels.role}") == "edge");
  CHECK(s.jsonpath("node/agent-1", "{.status.daemonEndpoints.kubeletEndpoint.Port}") == "10251");
  for (const char* file :
       {"server-ca.crt", "client-ca.crt", "client-kubelet.crt", "client-kubelet.key",
        "serving-kubelet.crt", "serving-kubelet.key", "kubelet.kubeconfig", "node-password"})
    CHECK(exists(box.path("agent-data") + "/agent/" + file));

  // A pod pinned to the agent's node.
  c.run_pod("edge", "agent-1", "echo hello from the edge; while true; do sleep 1; echo tick; done");
  CHECK(s.jsonpath("pod/edge", "{.spec.nodeName}") == "agent-1");
  CHECK(eventually([&] {
    return s.kubectl({"logs", "edge"}).out.rfind("hello from the edge\ntick\n", 0) == 0;
  }));
  {
    // logs -f: streamed from the agent's kubelet as the container writes.
    ChildProcess follow(s.kubectl.argv({"logs", "-f", "--tail=1", "edge"}), s.kubectl.env(),
                        box.path("follow"));
    CHECK(eventually([&] { return lines(follow.out()).size() >= 3; }));
    CHECK_FALSE(follow.wait(0ms).has_value());  // still following
    follow.signal(SIGTERM);
    follow.wait(10s);
  }

  // exec: WebSocket (1.33) and SPDY (1.27), both through the apiserver to port 10251.
  auto exec = s.kubectl({"exec", "edge", "--", "sh", "-c", "echo in $HOSTNAME; exit 3"});
  CHECK(exec.exit_code == 3);
  CHECK(exec.out == "in edge\n");
  KubectlRunner old{box, kubectl_dir() + "/kubectl.1.27", {}, s.server.enter_prefix()};
  auto exec_old = old({"exec", "edge", "--", "sh", "-c", "exit 3"});
  INFO(exec_old.err);
  CHECK(exec_old.exit_code == 3);

  // port-forward (SPDY tunnelled in a WebSocket, 1.33) to a port of a pod on the agent.
  c.run_pod("web", "agent-1",
            "mkdir -p /www && echo hello-from-edge > /www/index.html && httpd -f -p 8080 -h /www");
  {
    ChildProcess forward(s.kubectl.argv({"port-forward", "pod/web", "18080:8080"}), s.kubectl.env(),
                         box.path("port-forward"));
    REQUIRE(eventually([&] { return forward.out().find("Forwarding from") != std::string::npos; }));
    std::vector<std::string> curl = s.server.enter_prefix();
    for (const char* arg : {"/usr/bin/curl", "-sS", "--max-time", "10", "http://127.0.0.1:18080/"})
      curl.push_back(arg);
    std::string got;
    CHECK(eventually([&] {
      got = run_to_end(curl, box.env(), box.path("curl"), 20s).out;
      return !got.empty();
    }));
    CHECK(got == "hello-from-edge\n");
    forward.signal(SIGTERM);
    (void)forward.wait(5s);
  }

  // The node proxy to the agent's kubelet (port 10251), with kubectl 1.33 and 1.27.
  check_node_proxy(s.kubectl, "agent-1", "10251", "edge", "hello from the edge");
  check_node_proxy(old, "agent-1", "10251", "edge", "hello from the edge");
  check_node_proxy_follow(box, s.kubectl, "agent-1", "edge");
  const std::string exec_proxied = exec_through_node_proxy(box, s.server, "agent-1", "edge", "hi");
  CHECK_THAT(exec_proxied, Catch::StartsWith("HTTP/1.1 101") && Catch::Contains("hi\n") &&
                               Catch::Contains("Success"));

  // Another machine cannot take over the node's name (its node password differs).
  Sandbox other;
  auto takeover = run_to_end(
      in_agent_namespaces(s.server, {K3C_BINARY, "agent", "-d", other.path("data"), "--server",
                                     server_url(box), "--token", token, "--node-name", "agent-1"}),
      other.env(), other.path("run"), 30s);
  CHECK(takeover.exit_code == 1);
  CHECK_THAT(takeover.err, Catch::Contains("another node password"));

  // SIGTERM: a clean stop.
  kill(agent.agent_pid(), SIGTERM);
  auto code = agent.process.wait(30s);
  REQUIRE(code.has_value());
  CHECK(*code == 0);
  // A stopped kubelet: a clear 5xx, not a hang.
  auto gone = s.kubectl({"logs", "edge"});
  CHECK(gone.exit_code != 0);
  CHECK_THAT(gone.err, Catch::Contains("cannot reach the kubelet of node agent-1"));
  for (const KubectlRunner* kubectl : {&s.kubectl, &old}) {
    auto proxied = node_proxy_get(*kubectl, "agent-1", "/healthz");
    INFO(kubectl->binary);
    CHECK(proxied.exit_code != 0);
    CHECK_THAT(proxied.err, Catch::Contains("(ServiceUnavailable)") &&
                                Catch::Contains("cannot reach the kubelet of node agent-1"));
  }
}

TEST_CASE("an agent runs a new static pod while its server does not answer; the mirror follows") {
  if (!skip_reason().empty()) return;
  JoinedCluster c({"--kubelet-arg=file-check-frequency=1s"});
  // The server stops answering (frozen: its API, store and kubelet), and is resumed whatever
  // happens below.
  c.s.server.signal(SIGSTOP);
  struct Resume {
    const RunningServer& server;
    ~Resume() { server.signal(SIGCONT); }
  } resume{c.s.server};
  const std::string manifests = c.box.path("agent-data") + "/agent/pod-manifests";
  // Only name, image and command: the agent's kubelet defaults the rest itself.
  std::ofstream(manifests + "/.web.yaml.tmp") << R"(apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers:
  - name: app
    image: busybox:1
    command: [sh, -c, "echo static pod up; while true; do sleep 1; done"]
)";
  std::filesystem::rename(manifests + "/.web.yaml.tmp", manifests + "/web.yaml");
  // The runtime ran it: its container's log (under the agent's pod-logs-dir) says so.
  auto logged = [&] {
    std::error_code ec;
    namespace fs = std::filesystem;
    for (fs::recursive_directory_iterator it(c.box.path("agent-logs"), ec), end; !ec && it != end;
         it.increment(ec)) {
      const std::string path = it->path().string();
      if (path.find("default_web-agent-1_") != std::string::npos && it->is_regular_file(ec) &&
          slurp(path).find("static pod up") != std::string::npos)
        return true;
    }
    return false;
  };
  REQUIRE(eventually(logged, 60s));
  {
    // The server still has not answered meanwhile.
    std::ifstream stat("/proc/" + std::to_string(c.s.server.server_pid()) + "/stat");
    std::string pid, comm, state;
    stat >> pid >> comm >> state;
    CHECK(state == "T");
  }

  // The server answers again: the mirror pod shows the static pod running, as the kubelet
  // defaulted it.
  c.s.server.signal(SIGCONT);
  REQUIRE(eventually(
      [&] { return c.s.jsonpath("pod/web-agent-1", "{.status.phase}") == "Running"; }, 90s));
  CHECK(c.s.jsonpath("pod/web-agent-1", "{.spec.restartPolicy}/{.spec.dnsPolicy}") ==
        "Always/ClusterFirst");
  CHECK(c.s.jsonpath("pod/web-agent-1", "{.spec.nodeName}") == "agent-1");
  CHECK(c.s.kubectl({"logs", "web-agent-1"}).out.find("static pod up") != std::string::npos);
}

// Not a test (hidden; run by name): kubectl exec round trips to a pod on the server's own node
// (in-process kubelet) and to one on the agent's (HTTPS to its kubelet), alternately.
TEST_CASE("bench: kubectl exec, in-process kubelet vs an agent's over HTTPS", "[.bench]") {
  if (!skip_reason().empty()) return;
  JoinedCluster c;
  c.run_pod("local", "server-1", "sleep 3600");
  c.run_pod("edge", "agent-1", "sleep 3600");
  auto timed = [&](const std::string& pod) {
    const auto start = std::chrono::steady_clock::now();
    auto r = c.s.kubectl({"exec", pod, "--", "true"});
    CHECK(r.exit_code == 0);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
  };
  std::vector<double> local, edge;
  for (int round = 0; round < 9; ++round) {
    local.push_back(timed("local"));
    edge.push_back(timed("edge"));
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::cout << "kubectl exec -- true, median of 9 (ms): in-process kubelet " << median(local)
            << ", agent's kubelet over HTTPS " << median(edge) << ", ratio "
            << median(edge) / median(local) << std::endl;
}

TEST_CASE("a bad token and a CA hash mismatch are refused with clear errors") {
  if (!skip_reason().empty()) return;
  Sandbox box;
  RunningServer server(box, {"--disable-agent"}, Launch::kInNamespaces);
  REQUIRE(server.ready == "READY=1");
  const std::string token = slurp(box.data_dir() + "/server/token");
  const std::string hash = token.substr(3, 64);
  auto join = [&](const std::string& t) {
    return run_to_end(
        in_agent_namespaces(server, {K3C_BINARY, "agent", "-d", box.path("agent-data"), "--server",
                                     server_url(box), "--token", t, "--node-name", "a"}),
        box.env(), box.path("run"), 30s);
  };
  auto bad = join("K10" + hash + "::server:wrong");
  CHECK(bad.exit_code == 1);
  CHECK_THAT(bad.err, Catch::Contains("401") && Catch::Contains("is the token right?"));
  auto password = token.substr(token.rfind(':') + 1);
  auto mismatch = join("K10" + std::string(64, 'a') + "::server:" + password);
  CHECK(mismatch.exit_code == 1);
  CHECK_THAT(mismatch.err, Catch::Contains("does not match the token"));
  auto garbage = join("not a token");
  CHECK(garbage.exit_code == 1);
  CHECK_THAT(garbage.err, Catch::Contains("token: contains whitespace"));
}

}  // namespace
}  // namespace k3c
