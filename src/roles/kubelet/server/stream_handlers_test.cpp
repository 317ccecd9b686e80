// The kubelet API's /exec, /attach and /portForward against the FakeRuntime (host processes,
// loopback dials): which container a request reaches, the answers before the switch, and
// the protocols after it over in-memory pipes.
#include "roles/kubelet/server/stream_handlers.h"

#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "fakes/echo_tcp_server.h"
#include "roles/kubelet/pods/labels.h"
#include "roles/kubelet/pods/testing/fake_runtime.h"
#include "roles/kubelet/server/kubelet_api.h"
#include "streaming/testing/protocol_clients.h"

namespace k3c::kubelet {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using streaming::testing::client_frame;
using streaming::testing::FrameReader;

struct StreamNode {
  testing::FakeRuntime runtime{SystemClock::instance()};
  json pod = json::parse(R"({"metadata":{"name":"p","namespace":"ns","uid":"u1"},
      "spec":{"containers":[{"name":"app"},{"name":"idle"}]}})");
  std::string sandbox, app;
  KubeletApi api{{[this](const std::string& ns, const std::string& name) -> std::optional<json> {
                    if (ns == "ns" && name == "p") return pod;
                    return std::nullopt;
                  },
                  [] { return std::vector<json>{}; }, &runtime}};

  StreamNode() {
    runtime::SandboxConfig sc;
    sc.pod_uid = "u1";
    sandbox = runtime.run_pod_sandbox(sc).value();
    for (const char* name : {"app", "idle"}) {
      runtime::ContainerConfig cc;
      cc.name = name;
      cc.labels = {{labels::kPodUid, "u1"}, {labels::kContainerName, name}};
      std::string id = runtime.create_container(sandbox, cc).value();
      if (std::string(name) == "app") {
        app = id;
        REQUIRE(runtime.start_container(id).is_ok());
      }
    }
  }
};

http::Request ws(const std::string& path, std::vector<std::pair<std::string, std::string>> query,
                 const std::string& protocol = "v5.channel.k8s.io") {
  http::Request r = streaming::testing::websocket_request(protocol, path);
  r.query = std::move(query);
  return r;
}

// Runs a 101 answer's handler over a pipe and returns what the client saw per channel.
std::map<int, std::string> run_channels(http::Response& r, const std::string& client_input) {
  auto [server, client] = http::make_pipe();
  std::thread t([&, s = server.get()] { r.upgrade(*s); });
  REQUIRE(client->write_all(client_input).is_ok());
  FrameReader reader(*client);
  std::map<int, std::string> out;
  while (auto m = reader.message(10s))
    if (!m->empty()) out[uint8_t((*m)[0])] += m->substr(1);
  client->close();
  t.join();
  return out;
}

TEST_CASE("exec reaches the running container and reports the exit code") {
  StreamNode node;
  auto r = node.api.handle(ws("/exec/ns/p/app", {{"command", "sh"},
                                                 {"command", "-c"},
                                                 {"command", "read l; echo got $l; exit 4"},
                                                 {"input", "1"},
                                                 {"output", "1"},
                                                 {"error", "1"}}));
  REQUIRE(r.status == 101);
  auto out = run_channels(r, client_frame(0x2, std::string("\0line\n", 6)));
  CHECK(out[1] == "got line\n");
  CHECK(json::parse(out[3])["details"]["causes"][0]["message"] == "4");
  CHECK(node.runtime.calls().back() == "exec " + node.app + " sh -c read l; echo got $l; exit 4");
}

TEST_CASE("attach runs the container's attach command with the client's stdin") {
  StreamNode node;
  node.runtime.set_attach_command("app", {"sh", "-c", "read l; echo attached $l; exit 9"});
  auto r = node.api.handle(ws("/attach/ns/p/app", {{"input", "1"}, {"output", "1"}, {"error", "1"}},
                              "v4.channel.k8s.io"));
  REQUIRE(r.status == 101);
  auto out = run_channels(r, client_frame(0x2, std::string("\0x\n", 3)));
  CHECK(out[1] == "attached x\n");
  CHECK(out[3] == R"({"metadata":{},"status":"Success"})");  // attach: the exit is no failure
}

TEST_CASE("before the switch: unknown pods and containers, stopped containers, bad requests") {
  StreamNode node;
  const std::vector<std::pair<std::string, std::string>> q = {{"command", "true"}, {"output", "1"}};
  CHECK(node.api.handle(ws("/exec/ns/nope/app", q)).status == 404);
  auto missing = node.api.handle(ws("/exec/ns/p/db", q));
  CHECK(missing.status == 404);
  CHECK(missing.body == "container \"db\" not found in pod \"p\"\n");
  auto stopped = node.api.handle(ws("/exec/ns/p/idle", q));
  CHECK(stopped.status == 500);
  CHECK(stopped.body == "container not found (\"idle\")\n");
  auto no_streams = node.api.handle(ws("/exec/ns/p/app", {{"command", "true"}}));
  CHECK(no_streams.status == 400);
  auto no_command = node.api.handle(ws("/exec/ns/p/app", {{"output", "1"}}));
  CHECK(no_command.body == "you must specify at least one command for the container\n");
  http::Request plain;
  plain.method = "POST";
  plain.path = "/exec/ns/p/app";
  plain.query = q;
  CHECK(node.api.handle(plain).status == 400);
  CHECK(node.api.handle(ws("/exec/ns/p/u1/app", q)).status == 101);  // the uid form
  CHECK(node.api.handle(ws("/exec/ns/p/u2/app", q)).status == 404);
}

TEST_CASE("portForward dials the sandbox's port; stop() ends the tunnels still open") {
  StreamNode node;
  k3c::testing::EchoTcpServer echo;
  http::Request r;
  r.method = "POST";
  r.path = "/portForward/ns/p";
  r.headers = {{"connection", "Upgrade"},
               {"upgrade", "SPDY/3.1"},
               {"x-stream-protocol-version", "portforward.k8s.io"}};
  auto answer = node.api.handle(r);
  REQUIRE(answer.status == 101);
  auto [server, client] = http::make_pipe();
  std::atomic<bool> done{false};
  std::thread t([&, s = server.get()] {
    answer.upgrade(*s);
    done = true;
  });
  streaming::testing::SpdyClient c(*client);
  const std::string port = std::to_string(echo.port());
  c.open({{"streamtype", "error"}, {"port", port}, {"requestid", "0"}});
  uint32_t d = c.open({{"streamtype", "data"}, {"port", port}, {"requestid", "0"}});
  c.data(d, "ping");
  std::string got;
  while (got.size() < 4) {
    auto f = c.next(5s);
    REQUIRE(f);
    if (f->type == streaming::spdy::FrameType::kData && f->stream_id == d) got += f->data;
  }
  CHECK(got == "ping");
  CHECK(node.runtime.calls().back() == "port_forward " + node.sandbox + " " + port);
  const auto before = std::chrono::steady_clock::now();
  node.api.stop();  // closes the tunnel and waits for its handler to return
  CHECK(std::chrono::steady_clock::now() - before < 3s);
  t.join();
  CHECK(done);
  CHECK(node.api.handle(r).status == 101);  // a later switch ends at once when run
}

}  // namespace
}  // namespace k3c::kubelet
