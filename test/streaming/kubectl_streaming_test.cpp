// kubectl exec, attach and port-forward, the real binaries (1.27: SPDY; 1.33: WebSocket,
// and SPDY tunnelled in a WebSocket for port-forward), against the API server and kubelet
// roles running in this process over a FakeRuntime whose exec runs host processes and whose
// port-forward dials loopback: the whole chain of HTTPS upgrade, API server checks, the
// in-process hop to the kubelet and the protocols, without containers.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "child_process.h"
#include "fakes/echo_tcp_server.h"
#include "kubectl_runner.h"
#include "roles/apiserver/api_server.h"
#include "roles/kubelet/kubelet_role.h"
#include "roles/kubelet/pods/testing/fake_runtime.h"
#include "store/store.h"

namespace k3c {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

constexpr const char* kNode = "stream-node";

// Store, API server and kubelet in this process; kubectl from outside.
struct Cluster {
  Sandbox box;
  kubelet::testing::FakeRuntime runtime{SystemClock::instance()};
  std::unique_ptr<store::Store> db;
  std::unique_ptr<apiserver::ApiServerRole> apiserver;
  std::unique_ptr<kubelet::KubeletRole> kubelet;

  Cluster() {
    store::Options so;
    so.path = box.path("state.db");
    so.sync = store::SyncMode::kNormal;
    auto opened = store::open(so);
    REQUIRE(opened.is_ok());
    db = std::move(*opened);
    auto endpoints = std::make_shared<http::LocalEndpoints>();
    apiserver::ApiServerConfig a;
    a.tls_dir = box.path("tls");
    a.token_path = box.path("token");
    a.bind_address = "127.0.0.1";
    a.port = box.port();
    a.kubeconfig_path = box.kubeconfig();
    a.kubelets = endpoints;
    apiserver = std::make_unique<apiserver::ApiServerRole>(a, [this] { return db.get(); });
    REQUIRE(apiserver->start().is_ok());
    // No controller manager here makes the namespace's default account, which a pod needs.
    REQUIRE(
        KubectlRunner{box, kubectl_dir() + "/kubectl.1.33"}({"create", "serviceaccount", "default"})
            .exit_code == 0);
    runtime.add_image("busybox:1");
    kubelet::KubeletConfig k;
    k.handler = [this](http::Request& r) { return apiserver->handle(r); };
    k.node_name = kNode;
    k.data_dir = box.path("agent");
    k.endpoints = endpoints;
    k.runtime = [this]() -> runtime::RuntimeService* { return &runtime; };
    k.images = [this]() -> runtime::ImageService* { return &runtime; };
    k.settings.pod_logs_dir = box.path("pods-logs");
    k.host_resolv_conf = "/etc/resolv.conf";
    kubelet = std::make_unique<kubelet::KubeletRole>(k);
    REQUIRE(kubelet->start().is_ok());
  }
  ~Cluster() {
    kubelet->stop();
    apiserver->stop();
  }
  // Creates a pod bound to the node and waits until it runs.
  void run_pod(const std::string& name, const std::vector<std::string>& containers);
};

KubectlRunner kubectl_for(const Cluster& c, const std::string& version) {
  return KubectlRunner{c.box, kubectl_dir() + "/kubectl." + version};
}

// Runs `kubectl args` with `input` on its stdin (through sh, since run_to_end has none).
testing::Finished with_stdin(const KubectlRunner& k, const std::vector<std::string>& args,
                             const std::string& input) {
  const std::string in = k.box.path("stdin.txt");
  write_file(in, input);
  std::string cmd = "exec '" + k.binary + "'";
  for (const std::string& a : args) cmd += " '" + a + "'";
  cmd += " < '" + in + "'";
  return testing::run_to_end({"/bin/sh", "-c", cmd}, k.env(), k.box.path("kubectl"), 30s);
}

// The pod's phase reaches Running, or the test fails showing the pod and the runtime's calls.
void create_pod(const KubectlRunner& k, const std::string& name,
                const std::vector<std::string>& containers, kubelet::testing::FakeRuntime* rt) {
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", name}}},
              {"spec",
               {{"nodeName", kNode},
                {"automountServiceAccountToken", false},
                {"containers", json::array()}}}};
  for (const std::string& c : containers)
    pod["spec"]["containers"].push_back({{"name", c}, {"image", "busybox:1"}, {"stdin", true}});
  const std::string file = k.box.path(name + ".json");
  write_file(file, pod.dump());
  auto created = k({"create", "-f", file});
  INFO(created.err);
  REQUIRE(created.exit_code == 0);
  bool running = eventually(
      [&] {
        return k({"get", "pod", name, "-o", "jsonpath={.status.phase}"}).out == "Running";
      },
      30s);
  if (!running) {
    std::string calls;
    for (auto& c : rt->calls()) calls += c + "\n";
    FAIL(k({"get", "pod", name, "-o", "yaml"}).out << "\n" << calls);
  }
}

void Cluster::run_pod(const std::string& name, const std::vector<std::string>& containers) {
  REQUIRE_FALSE(kubectl_dir().empty());
  create_pod(KubectlRunner{box, kubectl_dir() + "/kubectl.1.33"}, name, containers, &runtime);
}

TEST_CASE("kubectl exec: exit codes, stdin, stderr and the API server's checks") {
  Cluster cluster;
  cluster.run_pod("one", {"app"});
  cluster.run_pod("two", {"web", "side"});
  auto admin = kubectl_for(cluster, "1.33");

  // 1.27-1.29 speak SPDY, 1.30+ WebSocket v5 (kubectl-wire.md section 7).
  for (const char* version : {"1.27", "1.28", "1.29", "1.30", "1.31", "1.32", "1.33"}) {
    INFO("kubectl " << version);
    auto k = kubectl_for(cluster, version);
    auto three = k({"exec", "one", "--", "sh", "-c", "echo out; echo err >&2; exit 3"});
    CHECK(three.exit_code == 3);
    CHECK(three.out == "out\n");
    CHECK_THAT(three.err, Catch::Contains("err\n"));
    auto zero = k({"exec", "one", "--", "echo", "fine"});
    CHECK(zero.exit_code == 0);
    CHECK(zero.out == "fine\n");
    auto piped = with_stdin(k, {"exec", "-i", "one", "--", "sh", "-c", "tr a-z A-Z; exit 0"},
                            "piped through\n");
    CHECK(piped.exit_code == 0);
    CHECK(piped.out == "PIPED THROUGH\n");
    auto named = k({"exec", "two", "-c", "side", "--", "echo", "side"});
    CHECK(named.out == "side\n");
    auto unnamed = k({"exec", "two", "--", "true"});
    CHECK(unnamed.exit_code == 0);  // kubectl picks the first container itself (with a note)
    auto wrong = k({"exec", "two", "-c", "nope", "--", "true"});
    CHECK(wrong.exit_code != 0);
    CHECK_THAT(wrong.err, Catch::Contains("container nope is not valid for pod two"));
  }
  // Without a container name, the API server answers as upstream does.
  auto raw = admin({"get", "--raw", "/api/v1/namespaces/default/pods/two/exec?command=true"});
  CHECK_THAT(raw.err, Catch::Contains("a container name must be specified for pod two, choose "
                                      "one of: [web side]"));
}

TEST_CASE("kubectl exec -t runs on a terminal; attach reaches the container's process") {
  Cluster cluster;
  cluster.run_pod("one", {"app"});
  for (const char* version : {"1.27", "1.33"}) {
    INFO("kubectl " << version);
    auto k = kubectl_for(cluster, version);
    // A terminal: `script` gives kubectl one, so it asks for tty and sends its size.
    std::string cmd =
        "'" + k.binary + "' exec -it one -- sh -c 'tty >/dev/null && echo on-a-tty && stty size'";
    auto t = testing::run_to_end({"/usr/bin/script", "-qec", cmd, "/dev/null"}, k.env(),
                                 k.box.path("script"), 30s);
    CHECK(t.exit_code == 0);
    CHECK_THAT(t.out, Catch::Contains("on-a-tty"));
    // attach: the fake's container process is `cat`, which echoes stdin back.
    auto a = with_stdin(k, {"attach", "-i", "one"}, "hello attach\n");
    CHECK_THAT(a.out, Catch::Contains("hello attach"));
  }
}

TEST_CASE("kubectl port-forward carries TCP both ways and survives idle periods") {
  Cluster cluster;
  cluster.run_pod("one", {"app"});
  testing::EchoTcpServer echo("echo:");
  // Plain SPDY up to 1.30, SPDY tunnelled in a WebSocket from 1.31.
  for (const char* version : {"1.27", "1.30", "1.31", "1.33"}) {
    INFO("kubectl " << version);
    auto k = kubectl_for(cluster, version);
    const uint16_t local = free_port();
    testing::ChildProcess pf(k.argv({"port-forward", "pod/one",
                                     std::to_string(local) + ":" + std::to_string(echo.port())}),
                             k.env(), k.box.path(std::string("pf-") + version));
    REQUIRE(eventually([&] { return pf.out().find("Forwarding from") != std::string::npos; }));
    auto through = [&](const std::string& text) {
      int fd = testing::connect_loopback(local);
      if (fd < 0) return std::string("<no connection>");
      fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
      (void)!::send(fd, text.data(), text.size(), MSG_NOSIGNAL);
      ::shutdown(fd, SHUT_WR);
      std::string got;
      char buf[4096];
      timeval tv{10, 0};
      setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
      for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) got.append(buf, size_t(n));
      ::close(fd);
      return got;
    };
    CHECK(through("first") == "echo:first");
    std::this_thread::sleep_for(3s);  // an idle tunnel stays up
    CHECK(through("second") == "echo:second");
    CHECK(pf.wait(0ms) == std::nullopt);  // still running
    pf.signal(SIGTERM);
    (void)pf.wait(5s);
  }
  CHECK(echo.connections() == 8);
}

TEST_CASE("kubectl cp moves files both ways through exec (tar over stdin and stdout)") {
  Cluster cluster;
  cluster.run_pod("one", {"app"});
  // The fake's "container" is the host, so pod paths are paths in the sandbox directory.
  std::string payload;
  for (int i = 0; i < 20000; ++i) payload += static_cast<char>(i * 7 % 251);
  write_file(cluster.box.path("payload.bin"), payload);
  for (const char* version : {"1.27", "1.33"}) {
    INFO("kubectl " << version);
    auto k = kubectl_for(cluster, version);
    const std::string up = cluster.box.path(std::string("up-") + version);
    auto put = k({"cp", cluster.box.path("payload.bin"), "one:" + up});
    CHECK(put.exit_code == 0);
    std::ifstream in(up, std::ios::binary);
    CHECK(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()) ==
          payload);
    const std::string down = cluster.box.path(std::string("down-") + version);
    auto get = k({"cp", "one:" + up, down});
    CHECK(get.exit_code == 0);
    std::ifstream back(down, std::ios::binary);
    CHECK(std::string((std::istreambuf_iterator<char>(back)), std::istreambuf_iterator<char>()) ==
          payload);
  }
}

TEST_CASE("an exec longer than kubectl's 61 s read deadline lives on pongs") {
  REQUIRE_FALSE(kubectl_dir().empty());
  Cluster cluster;
  cluster.run_pod("one", {"app"});
  auto k = kubectl_for(cluster, "1.33");
  // kubectl 1.30+ pings every 5 s and gives up 61 s after the last pong.
  auto r =
      testing::run_to_end(k.argv({"exec", "one", "--", "sh", "-c", "sleep 65; echo still-here"}),
                          k.env(), k.box.path("long"), 90s);
  CHECK(r.exit_code == 0);
  CHECK(r.out == "still-here\n");
}

// Whether a process whose command line contains `marker` runs on this host (kubectl's own
// command line holds it too, until kubectl is gone).
bool process_with(const std::string& marker) {
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    std::ifstream in(entry.path() / "cmdline");
    std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (cmdline.find(marker) != std::string::npos) return true;
  }
  return false;
}

TEST_CASE("a kubectl killed mid-exec ends the session: the process is killed") {
  Cluster cluster;
  cluster.run_pod("one", {"app"});
  for (const char* version : {"1.27", "1.33"}) {
    INFO("kubectl " << version);
    auto k = kubectl_for(cluster, version);
    const std::string marker = std::string("k3c-stream-marker-") + version;
    testing::ChildProcess exec(k.argv({"exec", "one", "--", "sh", "-c",
                                       "echo started; while :; do sleep 0.2; done; : " + marker}),
                               k.env(), k.box.path(std::string("exec-") + version));
    REQUIRE(eventually([&] { return exec.out().find("started") != std::string::npos; }));
    REQUIRE(process_with(marker));
    exec.signal(SIGKILL);
    (void)exec.wait(5s);
    CHECK(eventually([&] { return !process_with(marker); }, 10s));
  }
}

}  // namespace
}  // namespace k3c
