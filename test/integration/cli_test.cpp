// Integration tests of the real k3c binary: version and help, config errors caught before
// anything starts, the server's start (data dir, datastore file, READY=1), its graceful stop
// on SIGTERM/SIGINT, the forced exit on a second signal, and the agent's honest refusal.
// Every run gets its own temporary HOME, data dir and config file; nothing outside them is
// touched.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <fstream>

#include "server_sandbox.h"

namespace k3c {
namespace {

using namespace std::chrono_literals;
using testing::ChildProcess;
using testing::Finished;
using testing::run_to_end;

TEST_CASE("k3c --version") {
  Sandbox box;
  Finished version = box.run({K3C_BINARY, "--version"});
  CHECK(version.exit_code == 0);
  CHECK_THAT(version.out, Catch::Matches("k3c version v\\d+\\.\\d+\\.\\d+ \\([0-9a-z]+\\)\n"
                                         "kubernetes v\\d+\\.\\d+\\.\\d+\n"));
}

TEST_CASE("k3c server --help lists the flags in groups") {
  Sandbox box;
  Finished help = box.run({K3C_BINARY, "server", "--help"});
  CHECK(help.exit_code == 0);
  for (const char* text : {"Listener:", "Networking:", "Database:", "Components:", "Node:",
                           "--https-listen-port", "--cluster-cidr", "--datastore-endpoint",
                           "--disable-agent", "--node-taint", "-d,--data-dir"}) {
    CHECK_THAT(help.out, Catch::Contains(text));
  }
}

TEST_CASE("Config file mistakes exit 1 naming the key and value, before anything starts") {
  struct Case {
    const char* yaml;
    const char* expected;
  };
  for (const Case& c : {
           Case{"no-such-key: 1\n", "key \"no-such-key\": unknown setting"},
           Case{"cluster-cidr: 10.42.0.0/99\n",
                "key \"cluster-cidr\": invalid value \"10.42.0.0/99\""},
           Case{"https-listen-port: 99999\n", "key \"https-listen-port\": invalid value \"99999\""},
           Case{"write-kubeconfig-mode: 999\n",
                "key \"write-kubeconfig-mode\": invalid value \"999\""},
       }) {
    INFO(c.yaml);
    Sandbox box;
    box.write_config(c.yaml);
    Finished run = box.run(box.server_args());
    CHECK(run.exit_code == 1);
    CHECK_THAT(run.err, Catch::Contains(box.config()) && Catch::Contains(c.expected));
    CHECK_FALSE(exists(box.data_dir()));  // nothing was started or created
  }
}

TEST_CASE("A bad flag exits 1 naming the flag and value") {
  Sandbox box;
  Finished run = box.run(box.server_args({"--service-node-port-range", "5-1"}));
  CHECK(run.exit_code == 1);
  CHECK_THAT(run.err, Catch::Contains("flag --service-node-port-range: invalid value \"5-1\""));
  Finished endpoint = box.run(box.server_args({"--datastore-endpoint", "mysql://db/k3c"}));
  CHECK(endpoint.exit_code == 1);
  CHECK_THAT(endpoint.err, Catch::Contains("not implemented yet"));
}

TEST_CASE("k3c server starts the datastore and the API, says READY=1 and stops on SIGTERM") {
  Sandbox box;
  // The worker roles run only inside namespaces a test makes (kubelet_test.cpp).
  RunningServer server(box, {"--disable-agent"});
  REQUIRE(server.ready == "READY=1");
  CHECK(exists(box.data_dir() + "/server/db/state.db"));
  CHECK(exists(box.data_dir() + "/server/tls"));
  CHECK(exists(box.data_dir() + "/agent/images"));
  CHECK(exists(box.path("kubeconfig.yaml")));           // the apiserver wrote it
  CHECK_FALSE(server.process.wait(200ms).has_value());  // it keeps running

  const auto stop_began = std::chrono::steady_clock::now();
  server.process.signal(SIGTERM);
  CHECK(server.process.wait(5s) == 0);
  CHECK(std::chrono::steady_clock::now() - stop_began < 5s);
  CHECK(server.listener.receive() == "STOPPING=1");
  const std::string log = server.process.err();
  CHECK_THAT(log, Catch::Contains(
                      "[server] running roles: store, apiserver, controller-manager, scheduler\n"));
  CHECK_THAT(log, !Catch::Contains("roles not built"));
  CHECK_THAT(log, Catch::Contains("[store] stopped"));
}

TEST_CASE("k3c server stops gracefully on SIGINT too, logs to --log, and reopens its data") {
  Sandbox box;
  {
    RunningServer first(box, {"--datastore-sync", "normal", "--disable-agent", "--debug", "--log",
                              box.path("k3c.log")});
    REQUIRE(first.ready == "READY=1");
    first.process.signal(SIGINT);
    CHECK(first.process.wait(5s) == 0);
    CHECK_THAT(first.process.err(), Catch::Contains("sync normal"));
    CHECK_THAT(first.process.err(), !Catch::Contains("kubelet"));
    // --log gets the same lines, the signal watcher's included.
    std::ifstream log_file(box.path("k3c.log"));
    const std::string logged((std::istreambuf_iterator<char>(log_file)),
                             std::istreambuf_iterator<char>());
    CHECK_THAT(logged, Catch::Contains("[store] opened"));
    CHECK_THAT(logged, Catch::Contains("[signals] received SIGINT"));
  }
  RunningServer second(box, {"--disable-agent"});
  REQUIRE(second.ready == "READY=1");
  second.process.signal(SIGTERM);
  CHECK(second.process.wait(5s) == 0);
}

TEST_CASE("A second signal during the stop forces an immediate exit") {
  Sandbox box;
  RunningServer server(box, {"--disable-agent"});
  REQUIRE(server.ready == "READY=1");
  // Both are pending before k3c's signal watcher reads the first, so the second one lands
  // while the graceful stop is under way. The watcher takes SIGINT first (lower number).
  server.process.signal(SIGINT);
  server.process.signal(SIGTERM);
  const std::optional<int> code = server.process.wait(5s);
  REQUIRE(code.has_value());
  CHECK(*code == 143);
  CHECK_THAT(server.process.err(), Catch::Contains("exiting now without a graceful stop"));
}

TEST_CASE("k3c server fails with exit 1 when its data dir cannot be made") {
  Sandbox box;
  std::ofstream(box.data_dir()) << "a file where the data dir should be";
  Finished run = box.run(box.server_args());
  CHECK(run.exit_code == 1);
  CHECK_THAT(run.err, Catch::Contains("data dir: cannot create " + box.data_dir()));
}

TEST_CASE("k3c agent validates its flags and its token before it joins") {
  Sandbox box;
  box.write_config("");  // the sandbox's default config holds server-only keys
  const std::vector<std::string> base = {K3C_BINARY,   "agent", "-c",
                                         box.config(), "-d",    box.data_dir()};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return box.run(args);
  };
  // (Joining a real server: agent_test.cpp.)
  Finished agent = with({"--server", "https://127.0.0.1:6443", "--token", "K10abc::server:pw"});
  CHECK(agent.exit_code == 1);
  CHECK_THAT(agent.err, Catch::Contains("the CA hash after K10 is not 64 hex digits"));
  Finished missing = with({});
  CHECK(missing.exit_code == 1);
  CHECK_THAT(missing.err, Catch::Contains("needs the server to join"));
  Finished bad = with({"-s", "https://h:6443", "-t", "x", "--node-label", "=v"});
  CHECK(bad.exit_code == 1);
  CHECK_THAT(bad.err, Catch::Contains("flag --node-label: invalid value \"=v\""));
  box.write_config("cluster-cidr: 10.42.0.0/16\n");
  Finished server_key = with({"-s", "https://h:6443", "-t", "x"});
  CHECK(server_key.exit_code == 1);
  CHECK_THAT(server_key.err, Catch::Contains("only `k3c server` takes this setting"));
}

}  // namespace
}  // namespace k3c
