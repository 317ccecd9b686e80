// Tests for the typed server and agent configs: each bad value is an error naming where it
// came from and what it was; derived defaults; features not built yet.
#include "cli/config.h"

#include <catch2/catch.hpp>
#include <fstream>

#include "cli/command_line.h"
#include "cli/test_support.h"
#include "temp_dir.h"

namespace k3c::cli {
namespace {

Status server_error(const std::vector<std::string>& args,
                    const FileReader& files = FakeFileReader(),
                    const Environment& env = user_env()) {
  return parse_server(args, env, files).status();
}

Status config_error(const std::string& yaml) {
  FakeFileReader files;
  files.files["/c.yaml"] = yaml;
  return server_error({"-c", "/c.yaml"}, files);
}

TEST_CASE("Bad flag values name the flag and the value") {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"--cluster-cidr", "10.42.0.0/33"},
       "flag --cluster-cidr: invalid value \"10.42.0.0/33\": IPv4 prefix length must be "
       "between 0 and 32"},
      {{"--service-cidr", "10.43.0.5/16"},
       "flag --service-cidr: invalid value \"10.43.0.5/16\": host bits are set; the network "
       "address is 10.43.0.0/16"},
      {{"--https-listen-port", "70000"},
       "flag --https-listen-port: invalid value \"70000\": port must be between 1 and 65535"},
      {{"--bind-address", "0.0.0"},
       "flag --bind-address: invalid value \"0.0.0\": not an IPv4 or IPv6 address"},
      {{"--write-kubeconfig-mode", "0888"},
       "flag --write-kubeconfig-mode: invalid value \"0888\": not an octal file mode such as "
       "0600 or 644"},
      {{"--service-node-port-range", "30000"},
       "flag --service-node-port-range: invalid value \"30000\": expected FIRST-LAST, e.g. "
       "30000-32767"},
      {{"--disable", "traefik,helm"},
       "flag --disable: invalid value \"helm\": not a packaged component (coredns, servicelb, "
       "traefik, local-storage, metrics-server, runtimes)"},
      {{"--node-label", "tier"}, "flag --node-label: invalid value \"tier\": expected KEY=VALUE"},
      {{"--node-taint", "a=b:Sometimes"},
       "flag --node-taint: invalid value \"a=b:Sometimes\": taint effect \"Sometimes\" is not "
       "one of NoSchedule, PreferNoSchedule, NoExecute"},
      {{"--datastore-sync", "off"},
       "flag --datastore-sync: invalid value \"off\": expected full or normal"},
      {{"--node-name", "Edge_1"},
       "flag --node-name: invalid value \"Edge_1\": \"Edge_1\": a lowercase RFC 1123 subdomain "
       "must consist of lower case alphanumeric characters, '-' or '.', and must start and end "
       "with an alphanumeric character (e.g. 'example.com', regex used for validation is "
       "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"},
      {{"--tls-san", "bad name"},
       "flag --tls-san: invalid value \"bad name\": not an IP address or DNS name"},
      {{"--cluster-dns", "10.42.0.10"},
       "flag --cluster-dns: invalid value \"10.42.0.10\": not inside service-cidr 10.43.0.0/16"},
      {{"--data-dir", ""}, "flag --data-dir: invalid value \"\": must not be empty"},
  };
  for (const Case& c : cases) {
    INFO(c.args[0]);
    Status status = server_error(c.args);
    CHECK(status.code() == Code::kInvalid);
    CHECK(status.message() == c.message);
  }
}

TEST_CASE("Bad config file values name the file, the key and the value") {
  CHECK(config_error("cluster-cidr: 10.42.0.0/40\n").message() ==
        "config file /c.yaml: key \"cluster-cidr\": invalid value \"10.42.0.0/40\": IPv4 prefix "
        "length must be between 0 and 32");
  CHECK(config_error("https-listen-port: 0\n").message() ==
        "config file /c.yaml: key \"https-listen-port\": invalid value \"0\": port must be "
        "between 1 and 65535");
  CHECK(config_error("write-kubeconfig-mode: rw-r--r--\n").message() ==
        "config file /c.yaml: key \"write-kubeconfig-mode\": invalid value \"rw-r--r--\": not "
        "an octal file mode such as 0600 or 644");
  CHECK(config_error("disable-agent: sometimes\n").message() ==
        "config file /c.yaml: key \"disable-agent\": invalid value \"sometimes\": expected true "
        "or false");
  CHECK(config_error("disable: [traefik, dashboard]\n").message() ==
        "config file /c.yaml: key \"disable\": invalid value \"dashboard\": not a packaged "
        "component (coredns, servicelb, traefik, local-storage, metrics-server, runtimes)");
  CHECK(config_error("nodename: x\n").message() ==
        "config file /c.yaml: key \"nodename\": unknown setting");
}

TEST_CASE("Bad environment values name the variable") {
  Environment env = user_env();
  env.variables["K3C_NODE_NAME"] = "UPPER";
  CHECK_THAT(server_error({}, FakeFileReader(), env).message(),
             Catch::StartsWith("environment variable K3C_NODE_NAME: invalid value \"UPPER\""));
}

TEST_CASE("Cross-field checks and derived values") {
  auto config = parse_server({"--service-cidr", "10.96.0.0/12"}, user_env(), FakeFileReader());
  REQUIRE(config.is_ok());
  CHECK(config->cluster_dns.to_string() == "10.96.0.10");  // follows the service range

  CHECK(server_error({"--cluster-cidr", "10.0.0.0/8"}).message() ==
        "cluster-cidr 10.0.0.0/8 and service-cidr 10.43.0.0/16 overlap");
  // Node IPAM slices the cluster CIDR.
  CHECK(config->controller_manager.cluster_cidr.network == 0x0a2a0000);
  CHECK(config->controller_manager.cluster_cidr.prefix == 16);
  CHECK(server_error({"--kube-controller-manager-arg", "node-cidr-mask-size=12"}).message() ==
        "kube-controller-manager-arg node-cidr-mask-size=12: must be at least the cluster-cidr's "
        "prefix length (16), at most 16 more, and at most 32");
  CHECK(parse_server({"--kube-controller-manager-arg", "node-cidr-mask-size=12",
                      "--kube-controller-manager-arg", "allocate-node-cidrs=false"},
                     user_env(), FakeFileReader())
            .is_ok());
  CHECK(server_error({"--node-ip", "10.0.0.1,10.0.0.2"}).message() ==
        "node-ip: at most one IPv4 and one IPv6 address");
  auto dual =
      parse_server({"--node-ip", "10.0.0.1", "--node-ip", "fd00::1"}, user_env(), FakeFileReader());
  REQUIRE(dual.is_ok());
  CHECK(dual->node.node_ips.size() == 2);
  auto kubelet = parse_server({"--kubelet-arg", "node-status-update-frequency=5s"}, user_env(),
                              FakeFileReader());
  REQUIRE(kubelet.is_ok());
  CHECK(kubelet->node.kubelet.node_status_update_frequency == std::chrono::seconds(5));
  CHECK(server_error({"--kubelet-arg", "node-status-update-frequency=0s"}).message() ==
        "kubelet flag node-status-update-frequency: must be positive");
  CHECK(server_error({"--kubelet-arg", "image-gc-low-threshold=90"}).message() ==
        "kubelet flag image-gc-low-threshold: 90 must be less than image-gc-high-threshold 85");
  CHECK(server_error({"--kubelet-arg", "eviction-soft=memory.available<1Gi"}).message() ==
        "kubelet eviction flags: grace period must be specified for the soft eviction threshold "
        "memory.available");
  CHECK(server_error({"--kubelet-arg", "max-pods=x"}).message() ==
        "flag --kubelet-arg: invalid value \"max-pods=x\": kubelet flag max-pods: expected a "
        "whole number");

  auto full = parse_server(
      {"--disable", "traefik", "--disable=servicelb,coredns", "--disable-agent", "--tls-san",
       "*.edge.example.com", "--advertise-address", "192.168.1.5", "--datastore-sync", "normal"},
      user_env(), FakeFileReader());
  REQUIRE(full.is_ok());
  CHECK(full->disabled == std::set<std::string>{"coredns", "servicelb", "traefik"});
  CHECK(full->disable_agent);
  CHECK(full->advertise_address->to_string() == "192.168.1.5");
  CHECK(full->datastore_sync == DatastoreSync::kNormal);
}

TEST_CASE("Datastore endpoints: SQLite only for now") {
  auto sqlite = parse_server({"--datastore-endpoint", "sqlite:///srv/db.sqlite?_journal=WAL"},
                             user_env(), FakeFileReader());
  REQUIRE(sqlite.is_ok());
  CHECK(sqlite->datastore_path == "/srv/db.sqlite");
  auto bare = parse_server({"--datastore-endpoint", "sqlite://", "-d", "/data"}, user_env(),
                           FakeFileReader());
  CHECK(bare->datastore_path == "/data/server/db/state.db");

  Status postgres = server_error({"--datastore-endpoint", "postgres://k3c:hunter2@db:5432/k3c"});
  CHECK(postgres.code() == Code::kNotImplemented);
  CHECK_THAT(postgres.message(), Catch::Contains("postgres:// datastores are not implemented"));
  CHECK_THAT(postgres.message(), !Catch::Contains("hunter2"));  // never echo credentials
}

TEST_CASE("Features not built yet are refused, not ignored") {
  Status join = server_error({"--server", "https://10.0.0.1:6443"});
  CHECK(join.code() == Code::kNotImplemented);
  CHECK_THAT(join.message(), Catch::StartsWith("flag --server: joining another server"));
  CHECK(server_error({"--cluster-cidr", "10.42.0.0/16,fd00:42::/56"}).code() ==
        Code::kNotImplemented);
}

TEST_CASE("The agent needs a server URL and a token") {
  FakeFileReader none;
  auto ok = parse_agent({"-s", "https://10.0.0.1:6443", "-t", "secret", "--node-label", "a=b"},
                        user_env(), none);
  REQUIRE(ok.is_ok());
  CHECK(ok->node.server_url == "https://10.0.0.1:6443");
  CHECK(ok->node.token == "secret");

  CHECK_THAT(parse_agent({"-t", "x"}, user_env(), none).status().message(),
             Catch::Contains("needs the server to join"));
  CHECK_THAT(parse_agent({"-s", "https://h:6443"}, user_env(), none).status().message(),
             Catch::Contains("needs the cluster token"));
  CHECK_THAT(parse_agent({"-s", "http://h:6443", "-t", "x"}, user_env(), none).status().message(),
             Catch::Contains("must be an https:// URL"));
  Environment env = user_env();
  env.variables["K3C_URL"] = "https://10.0.0.1:6443";
  env.variables["K3C_TOKEN"] = "secret";
  CHECK(parse_agent({}, env, none).is_ok());
  // Still validated in full although the agent does not run yet.
  CHECK_THAT(parse_agent({"--node-taint", "x"}, env, none).status().message(),
             Catch::StartsWith("flag --node-taint: invalid value \"x\""));
}

TEST_CASE("A real config file on disk") {
  TempDir dir;
  const std::string path = dir.path() + "/config.yaml";
  std::ofstream(path) << "# k3c config\n"
                         "data-dir: "
                      << dir.path()
                      << "/data\n"
                         "cluster-cidr: 10.50.0.0/16\n"
                         "node-taint:\n  - dedicated=edge:NoSchedule\n"
                         "disable: traefik,servicelb\n";
  LocalFileReader files;
  auto config = parse_server({"--config", path}, user_env(), files);
  REQUIRE(config.is_ok());
  CHECK(config->node.config_file == path);
  CHECK(config->node.data_dir == dir.path() + "/data");
  CHECK(config->cluster_cidr.to_string() == "10.50.0.0/16");
  REQUIRE(config->node.node_taints.size() == 1);
  CHECK(config->node.node_taints[0].key == "dedicated");
  CHECK(config->disabled.size() == 2);

  CHECK(files.read(dir.path() + "/missing.yaml").status().code() == Code::kNotFound);
  CHECK(files.read(dir.path()).status().code() == Code::kInvalid);  // a directory
}

}  // namespace
}  // namespace k3c::cli
