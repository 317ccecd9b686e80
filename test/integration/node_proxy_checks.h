// The node proxy (`/api/v1/nodes/<n>/proxy/...`) checked through the real kubectl, shared by
// the tier with the in-process kubelet (pods_node_test.cpp) and the one with an agent's
// kubelet over HTTPS (agent_test.cpp): what the kubelet serves comes back as it serves it
// (health, pods, stats, metrics, logs, a followed log, exec's 101 and its frames), the
// forms of the node's name upstream accepts, and upstream's errors for a missing node and a
// malformed name.
#pragma once

#include <signal.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kubectl_runner.h"
#include "node_session.h"

namespace k3c {

// `kubectl get --raw /api/v1/nodes/<id>/proxy<path>`.
inline Finished node_proxy_get(const KubectlRunner& kubectl, const std::string& id,
                               const std::string& path) {
  return kubectl({"get", "--raw", "/api/v1/nodes/" + id + "/proxy" + path});
}

// `pod` runs on `node` (whose kubelet listens on `port`) with one container of the same name
// whose log begins with `first_line` and goes on growing a line a second or so.
inline void check_node_proxy(const KubectlRunner& kubectl, const std::string& node,
                             const std::string& port, const std::string& pod,
                             const std::string& first_line) {
  INFO(kubectl.binary << ", node " << node);
  auto ok = [&](const std::string& id, const std::string& path) {
    Finished r = node_proxy_get(kubectl, id, path);
    INFO(id << path << ": " << r.err);
    CHECK(r.exit_code == 0);
    return r.out;
  };
  CHECK(ok(node, "/healthz") == "ok");
  // The name with the kubelet's port, and with a scheme too, is the kubelet as well.
  CHECK(ok(node + ":" + port, "/healthz") == "ok");
  CHECK(ok("https:" + node + ":" + port, "/healthz") == "ok");
  // The bare proxy takes its path from the `path` option.
  CHECK(node_proxy_get(kubectl, node, "?path=/healthz").out == "ok");

  const nlohmann::json pods = nlohmann::json::parse(ok(node, "/pods"), nullptr, false);
  CHECK(pods.value("kind", "") == "PodList");
  bool listed = false;
  for (const auto& item : pods.value("items", nlohmann::json::array()))
    listed = listed || item["metadata"]["name"] == pod;
  CHECK(listed);
  const nlohmann::json summary = nlohmann::json::parse(ok(node, "/stats/summary"), nullptr, false);
  CHECK(summary["node"]["nodeName"] == node);
  CHECK(ok(node, "/metrics/resource").find("# TYPE node_cpu_usage_seconds_total counter") !=
        std::string::npos);
  CHECK(ok(node, "/containerLogs/default/" + pod + "/" + pod).rfind(first_line + "\n", 0) == 0);
  CHECK(ok(node, "/containerLogs/default/" + pod + "/" + pod + "?tailLines=1").size() < 20);

  // The kubelet's own errors pass through: its 404 text becomes kubectl's NotFound.
  Finished unknown = node_proxy_get(kubectl, node, "/no-such-path");
  CHECK(unknown.exit_code != 0);
  CHECK_THAT(unknown.err, Catch::Contains("NotFound"));
  // Upstream's errors for a node that does not exist and an id it cannot read.
  Finished missing = node_proxy_get(kubectl, "no-such-node", "/healthz");
  CHECK(missing.exit_code != 0);
  CHECK_THAT(missing.err, Catch::Contains("nodes \"no-such-node\" not found"));
  Finished malformed = node_proxy_get(kubectl, "a:" + node + ":1:2", "/healthz");
  CHECK_THAT(malformed.err, Catch::Contains("invalid node request \"a:" + node + ":1:2\""));
  Finished other_port = node_proxy_get(kubectl, node + ":9100", "/metrics");
  CHECK_THAT(other_port.err,
             Catch::Contains("proxying to port 9100 of node " + node + " is not implemented"));
}

// A followed log through the node proxy streams: lines arrive while the request is open.
inline void check_node_proxy_follow(const Sandbox& box, const KubectlRunner& kubectl,
                                    const std::string& node, const std::string& pod) {
  testing::ChildProcess follow(
      kubectl.argv({"get", "--raw",
                    "/api/v1/nodes/" + node + "/proxy/containerLogs/default/" + pod + "/" + pod +
                        "?follow=true&tailLines=1"}),
      kubectl.env(), box.path("proxy-follow"));
  CHECK(eventually([&] { return lines(follow.out()).size() >= 3; }));
  CHECK_FALSE(follow.wait(std::chrono::milliseconds(0)).has_value());  // still following
  follow.signal(SIGTERM);
  (void)follow.wait(std::chrono::seconds(10));  // its end status does not matter
}

// exec through the node proxy (`proxy/exec/<ns>/<pod>/<c>?command=..`) as a WebSocket, with
// curl and the admin's certificate in the server's network namespace: the HTTP head and the
// raw frames that follow (curl takes the 101 as the final answer and prints the rest).
inline std::string exec_through_node_proxy(const Sandbox& box, const RunningServer& server,
                                           const std::string& node, const std::string& pod,
                                           const std::string& word) {
  const std::string tls = box.data_dir() + "/server/tls/";
  std::vector<std::string> argv = server.enter_prefix();
  argv.insert(argv.end(), {"curl",
                           "-sS",
                           "-i",
                           "--http1.1",
                           "--max-time",
                           "15",
                           "--cacert",
                           tls + "server-ca.crt",
                           "--cert",
                           tls + "client-admin.crt",
                           "--key",
                           tls + "client-admin.key",
                           "-H",
                           "Connection: Upgrade",
                           "-H",
                           "Upgrade: websocket",
                           "-H",
                           "Sec-WebSocket-Version: 13",
                           "-H",
                           "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
                           "-H",
                           "Sec-WebSocket-Protocol: v5.channel.k8s.io",
                           "https://127.0.0.1:" + std::to_string(box.port()) + "/api/v1/nodes/" +
                               node + "/proxy/exec/default/" + pod + "/" + pod +
                               "?command=echo&command=" + word + "&output=1"});
  return run_to_end(argv, box.env(), box.path("proxy-exec"), std::chrono::seconds(20)).out;
}

}  // namespace k3c
