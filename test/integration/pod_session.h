// Fixtures of the pod tiers (integration.pods, integration.pods_node): a `k3c server` with
// its kubelet and runtime in namespaces of its own whose airgap directory holds a busybox
// image built from Debian's busybox-static (PodSession), and namespaces that outlive k3c so
// that it can stop and start again while its containers live on (SharedNamespaces,
// RestartableNode). Root only.
#pragma once

#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "images/test_images.h"
#include "node_session.h"

namespace k3c {

// Why the pod tiers cannot run here ("" when they can): they need namespaces (root) and
// Debian's busybox-static, from which they build their image.
inline std::string pods_skip_reason(std::string_view tier) {
  std::string why = namespaces_unavailable();
  if (why.empty() && access(testing::kBusyboxPath, X_OK) != 0)
    why = "Debian's busybox-static (/bin/busybox) is not installed";
  if (!why.empty()) WARN(tier << " skipped: " << why);
  return why;
}

// A server whose airgap directory holds the busybox image as docker.io/library/busybox:1.
struct PodSession {
  explicit PodSession(const Sandbox& box, const std::string& version = "1.33",
                      std::vector<std::string> extra = {})
      : airgap(stage_image(box)), s(box, with_node_name(std::move(extra)), version) {
    REQUIRE(eventually([&] { return s.node_ready("node-1"); }));
  }
  static bool stage_image(const Sandbox& box) {
    const std::string dir = box.data_dir() + "/agent/images";
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/busybox.tar", std::ios::binary) << testing::tar_of(
        testing::docker_archive_files(testing::busybox_image("docker.io/library/busybox:1")),
        testing::Compression::kNone);
    return true;
  }
  static std::vector<std::string> with_node_name(std::vector<std::string> extra) {
    extra.insert(extra.begin(), {"--node-name", "node-1"});
    return extra;
  }
  // A control file of the server's cgroup `relative` (e.g. "kubepods/burstable") in the
  // hierarchy carrying `file` (v1: /sys/fs/cgroup/<controller>/...; v2: one hierarchy);
  // "" when there is none.
  std::string cgroup_file(const std::string& relative, const std::string& file) const {
    const std::string controller = file.substr(0, file.find('.'));
    for (const std::string& top : {"/sys/fs/cgroup/" + controller, std::string("/sys/fs/cgroup")}) {
      std::ifstream in(top + "/" + s.server.cgroups.name() + "/" + relative + "/" + file);
      std::string value;
      if (in >> value) return value;
    }
    return "";
  }
  std::string phase(const std::string& pod) const {
    return s.jsonpath("pod/" + pod, "{.status.phase}");
  }
  std::string waiting_reason(const std::string& pod) const {
    return s.jsonpath("pod/" + pod, "{.status.containerStatuses[0].state.waiting.reason}");
  }
  bool airgap;
  NodeSession s;
};

// Namespaces whose PID 1 is a shell that only reaps, so that `k3c server` can stop and start
// again inside them while its shims and containers live on (with k3c as PID 1, as
// NodeSession runs it, its exit would end the PID namespace and every container in it).
struct SharedNamespaces {
  explicit SharedNamespaces(const Sandbox& box)
      : box(box),
        holder({"/usr/bin/unshare", "--mount", "--net", "--pid", "--fork", "--kill-child",
                "--propagation", "private", "--mount-proc", "/bin/sh", "-c",
                "ip link set lo up; while true; do wait; sleep 1; done"},
               box.env(), box.path("holder")) {}
  // PID 1 of the namespaces (unshare's child), 0 until it runs.
  pid_t init_pid() const {
    const std::string pid = std::to_string(holder.pid());
    std::ifstream children("/proc/" + pid + "/task/" + pid + "/children");
    pid_t child = 0;
    children >> child;
    return child;
  }
  // `k3c server` inside the namespaces; waits for READY=1.
  std::unique_ptr<testing::ChildProcess> start_server(const std::string& name) {
    using namespace std::chrono_literals;
    REQUIRE(eventually([&] { return init_pid() > 0; }, 5s));
    NotifyListener listener(box.path(name + ".sock"));
    std::vector<std::string> argv = {
        "/usr/bin/nsenter", "-t", std::to_string(init_pid()), "-m", "-n", "-p", "--"};
    std::vector<std::string> extra = {"--node-name", "node-1",
                                      "--kubelet-arg=cgroup-root=/" + cgroups.name(),
                                      "--kubelet-arg=pod-logs-dir=" + box.path("pod-logs")};
    RunningServer::add_test_eviction_thresholds(extra);
    for (std::string& arg : box.server_args(std::move(extra))) argv.push_back(std::move(arg));
    auto env = box.env();
    env["NOTIFY_SOCKET"] = box.path(name + ".sock");
    auto server = std::make_unique<testing::ChildProcess>(argv, env, box.path(name));
    REQUIRE(listener.receive(20s) == "READY=1");
    return server;
  }
  // SIGTERM to k3c (nsenter's child), then waits for it to stop.
  void stop_server(testing::ChildProcess& server) {
    using namespace std::chrono_literals;
    const std::string pid = std::to_string(server.pid());
    std::ifstream children("/proc/" + pid + "/task/" + pid + "/children");
    pid_t k3c = 0;
    children >> k3c;
    REQUIRE(k3c > 0);
    kill(k3c, SIGTERM);
    CHECK(server.wait(20s).has_value());
  }
  // Stops `server`, lets a second pass without k3c (its containers live on), starts k3c again
  // and waits until `running()` holds and a few syncs of the new kubelet have passed.
  std::unique_ptr<testing::ChildProcess> restart_server(testing::ChildProcess& server,
                                                        const std::function<bool()>& running) {
    using namespace std::chrono_literals;
    stop_server(server);
    std::this_thread::sleep_for(1s);
    auto again = start_server("second");
    REQUIRE(eventually(running));
    std::this_thread::sleep_for(2s);
    return again;
  }
  std::vector<std::string> enter_prefix() const {
    return {"/usr/bin/nsenter", "--net=/proc/" + std::to_string(holder.pid()) + "/ns/net"};
  }

  const Sandbox& box;
  TestCgroupRoot cgroups;  // removed after the holder (and with it every process) is gone
  testing::ChildProcess holder;
};

// The busybox image staged, the namespaces k3c restarts in, and kubectl 1.33 into them.
struct RestartableNode {
  RestartableNode() { PodSession::stage_image(box); }
  Sandbox box;
  SharedNamespaces ns{box};
  KubectlRunner kubectl{box, kubectl_dir() + "/kubectl.1.33", {}, ns.enter_prefix()};
};

}  // namespace k3c
