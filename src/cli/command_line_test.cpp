// Tests for the command line as a whole: help and version, precedence of the sources, the
// config file's discovery, and errors that name the flag or key and the value.
#include "cli/command_line.h"

#include <catch2/catch.hpp>

#include "cli/test_support.h"

namespace k3c::cli {
namespace {

Invocation run(std::vector<std::string> args, const Environment& env = user_env(),
               const FileReader& files = FakeFileReader()) {
  args.insert(args.begin(), "k3c");
  return parse_command_line(args, env, files);
}

TEST_CASE("--version prints the k3c and Kubernetes versions") {
  for (const char* flag : {"--version", "-v"}) {
    Invocation invocation = run({flag});
    CHECK(invocation.kind == Invocation::Kind::kExit);
    CHECK(invocation.exit_code == 0);
    CHECK_THAT(invocation.out, Catch::Matches("k3c version v\\d+\\.\\d+\\.\\d+ \\(\\w+\\)\n"
                                              "kubernetes v1\\.32\\.0\n"));
  }
}

TEST_CASE("Help lists the flags in groups, per command") {
  Invocation server = run({"server", "--help"});
  CHECK(server.exit_code == 0);
  for (const char* text : {"Networking:", "--cluster-cidr", "10.42.0.0/16", "Database:",
                           "--datastore-sync", "[$K3C_TOKEN]", "-o,--write-kubeconfig"}) {
    CHECK_THAT(server.out, Catch::Contains(text));
  }
  Invocation agent = run({"agent", "--help"});
  CHECK(agent.exit_code == 0);
  CHECK_THAT(agent.out, Catch::Contains("--node-label"));
  CHECK_THAT(agent.out, !Catch::Contains("--cluster-cidr"));
  CHECK_THAT(run({"--help"}).out, Catch::Contains("server"));
}

TEST_CASE("Usage errors exit 1") {
  Invocation none = run({});
  CHECK(none.exit_code == 1);
  CHECK_THAT(none.err, Catch::Contains("subcommand is required"));
  Invocation unknown = run({"server", "--no-such-flag"});
  CHECK(unknown.exit_code == 1);
  CHECK_THAT(unknown.err, Catch::Contains("--no-such-flag"));
  CHECK(run({"agent", "--cluster-cidr", "10.0.0.0/8"}).exit_code == 1);
  CHECK(run({"server", "extra"}).exit_code == 1);
}

TEST_CASE("Boolean flags: bare, with a value, and a bad value") {
  CHECK(run({"server", "--debug"}).server->node.debug);
  CHECK(run({"server", "--disable-agent", "--disable-scheduler"}).server->disable_scheduler);
  CHECK_FALSE(run({"server", "--debug=false"}).server->node.debug);
  CHECK(run({"server", "--disable-agent=yes"}).server->disable_agent);
  Invocation bad = run({"agent", "-s", "https://h:6443", "-t", "x", "--debug=maybe"});
  CHECK(bad.exit_code == 1);
  CHECK(bad.err == "k3c agent: flag --debug: invalid value \"maybe\": expected true or false\n");
}

TEST_CASE("Server defaults") {
  Invocation invocation = run({"server"});
  REQUIRE(invocation.kind == Invocation::Kind::kServer);
  const ServerConfig& c = *invocation.server;
  CHECK(c.node.data_dir == "/home/edge/.k3c");
  CHECK(c.node.config_file.empty());  // the default file is missing, which is fine
  CHECK(c.bind_address.to_string() == "0.0.0.0");
  CHECK(c.https_port == 6443);
  CHECK_FALSE(c.advertise_address.has_value());
  CHECK(c.cluster_cidr.to_string() == "10.42.0.0/16");
  CHECK(c.service_cidr.to_string() == "10.43.0.0/16");
  CHECK(c.cluster_dns.to_string() == "10.43.0.10");
  CHECK(c.cluster_domain == "cluster.local");
  CHECK(c.service_node_port_range == PortRange{30000, 32767});
  CHECK(c.write_kubeconfig == "/etc/k3c/k3c.yaml");
  CHECK(c.write_kubeconfig_mode == 0600);
  CHECK(c.datastore_path == "/home/edge/.k3c/server/db/state.db");
  CHECK(c.datastore_sync == DatastoreSync::kFull);
  CHECK(c.disabled.empty());
  CHECK_FALSE(c.disable_agent);
}

TEST_CASE("The data dir defaults to /var/lib/k3c as root") {
  Environment root;
  root.is_root = true;
  CHECK(run({"server"}, root).server->node.data_dir == "/var/lib/k3c");
  Environment homeless;
  Invocation invocation = run({"server"}, homeless);
  CHECK(invocation.exit_code == 1);
  CHECK_THAT(invocation.err, Catch::Contains("HOME is not set: pass --data-dir"));
  CHECK(run({"server", "-d", "/srv/k3c"}, homeless).server->node.data_dir == "/srv/k3c");
}

TEST_CASE("Precedence as in k3s: defaults < environment < config file < flags") {
  FakeFileReader files;
  files.files["/etc/k3c/config.yaml"] =
      "token: from-config\nnode-name: config-node\nhttps-listen-port: 7443\n"
      "node-label: [from=config]\n";
  Environment env = user_env();
  env.variables["K3C_TOKEN"] = "from-env";

  auto server = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"k3c", "server"});
    Invocation invocation = parse_command_line(args, env, files);
    REQUIRE(invocation.kind == Invocation::Kind::kServer);
    return *invocation.server;
  };
  ServerConfig plain = server({});
  env.variables["K3C_NODE_NAME"] = "env-node";
  CHECK(server({}).node.node_name == "config-node");  // the file beats the environment
  files.files["/etc/k3c/config.yaml"] = "https-listen-port: 7443\n";
  CHECK(server({}).node.node_name == "env-node");  // the environment beats defaults
  files.files["/etc/k3c/config.yaml"] =
      "token: from-config\nnode-name: config-node\nhttps-listen-port: 7443\n"
      "node-label: [from=config]\n";
  CHECK(plain.node.config_file == "/etc/k3c/config.yaml");
  CHECK(plain.https_port == 7443);               // config over default
  CHECK(plain.node.token == "from-config");      // config over environment, as in k3s
  CHECK(plain.node.node_name == "config-node");  // config, no env or flag
  ServerConfig flagged =
      server({"--token", "from-flag", "--https-listen-port=8443", "--node-label", "from=flag"});
  CHECK(flagged.node.token == "from-flag");  // flag over config and environment
  CHECK(flagged.https_port == 8443);         // flag over config
  // Lists from the command line add to the config file's, as in k3s.
  REQUIRE(flagged.node.node_labels.size() == 2);
  CHECK(flagged.node.node_labels[0].value == "config");
  CHECK(flagged.node.node_labels[1].value == "flag");
  // A single-valued flag given twice takes the last value.
  CHECK(server({"--token", "a", "--token", "b"}).node.token == "b");
}

TEST_CASE("The config file: --config over K3C_CONFIG_FILE over the default") {
  FakeFileReader files;
  files.files["/etc/k3c/config.yaml"] = "node-name: default-file\n";
  files.files["/env.yaml"] = "node-name: env-file\n";
  files.files["/flag.yaml"] = "node-name: flag-file\n";
  Environment env = user_env();
  CHECK(run({"server"}, env, files).server->node.node_name == "default-file");
  env.variables["K3C_CONFIG_FILE"] = "/env.yaml";
  CHECK(run({"server"}, env, files).server->node.node_name == "env-file");
  CHECK(run({"server", "-c", "/flag.yaml"}, env, files).server->node.node_name == "flag-file");
  // An empty --config reads no file at all.
  CHECK(run({"server", "--config", ""}, env, files).server->node.node_name.empty());
}

TEST_CASE("A config file named explicitly must exist and be readable") {
  FakeFileReader files;
  files.unreadable.insert("/etc/k3c/config.yaml");
  Invocation missing = run({"server", "--config", "/nope.yaml"});
  CHECK(missing.exit_code == 1);
  CHECK(missing.err == "k3c server: config file /nope.yaml: no such file\n");
  Environment env = user_env();
  env.variables["K3C_CONFIG_FILE"] = "/nope.yaml";
  CHECK(run({"agent"}, env).exit_code == 1);
  // The default file may be missing, but not unreadable.
  Invocation unreadable = run({"server"}, user_env(), files);
  CHECK(unreadable.exit_code == 1);
  CHECK_THAT(unreadable.err, Catch::Contains("Permission denied"));
}

}  // namespace
}  // namespace k3c::cli
