// `k3c bench hollow-nodes` (see bench_command.h).
#include "cli/bench_command.h"

#include <CLI/CLI.hpp>
#include <cstdio>

#include "api/quantity.h"
#include "cli/subcommand_parse.h"
#include "client/https_client.h"
#include "core/log.h"
#include "core/signals.h"
#include "pki/kubeconfig_reader.h"
#include "roles/hollow/hollow_nodes.h"

namespace k3c::cli {
namespace {

CommandOutcome usage_error(const std::string& message) {
  return {1, "", "k3c bench hollow-nodes: " + message + "\n"};
}

// The client the tool uses: the kubeconfig's server, CA and credentials, over HTTPS.
Result<std::unique_ptr<client::HttpsClient>> client_for(const std::string& kubeconfig) {
  ASSIGN_OR_RETURN(pki::KubeconfigCredentials creds, pki::read_kubeconfig(kubeconfig));
  client::HttpsClientOptions options;
  options.server = creds.server;
  options.tls.ca_pem = creds.ca_pem;
  options.tls.insecure_skip_verify = creds.insecure_skip_tls_verify;
  options.tls.cert_pem = creds.client_cert_pem;
  options.tls.key_pem = creds.client_key_pem;
  options.bearer_token = creds.token;
  return client::HttpsClient::make(std::move(options));
}

// The server's gitVersion, which the nodes report as their kubelet version; also the first
// proof that the server is there and takes the credentials.
Result<std::string> server_version(client::Client& client) {
  ASSIGN_OR_RETURN(client::Reply reply, client.request("GET", "/version", {}, {}));
  if (reply.status != 200) return client::status_of(reply);
  nlohmann::json body = nlohmann::json::parse(reply.body, nullptr, false);
  if (!body.is_object()) return error(Code::kInternal, "/version answered no JSON object");
  return body.value("gitVersion", "");
}

}  // namespace

BenchParse parse_bench(const std::vector<std::string>& args, const Environment&) {
  CLI::App app("Benchmarks and scale tools", "k3c bench");
  app.require_subcommand(1, 1);
  CLI::App* hollow = app.add_subcommand(
      "hollow-nodes",
      "Simulated nodes (kubemark-style) that register, heartbeat and report their pods "
      "Running, until SIGTERM");
  HollowCommand cmd;
  hollow::HollowSettings& s = cmd.settings;
  std::string memory = "8Gi";
  hollow->add_option("--kubeconfig", cmd.kubeconfig, "Kubeconfig of the cluster")->required();
  hollow->add_option("--count", s.count, "Number of nodes")->required();
  hollow->add_option("--name-prefix", s.name_prefix, "Node names: <prefix><index>")
      ->capture_default_str();
  hollow->add_option("--cpu", s.cpus, "CPUs of each node")->capture_default_str();
  hollow->add_option("--memory", memory, "Memory of each node (a quantity)")
      ->capture_default_str();
  hollow->add_option("--pods", s.max_pods, "Pods capacity of each node")->capture_default_str();
  hollow->add_option("--status-workers", s.status_workers,
                     "Pod status writes and deletions in flight at most")
      ->capture_default_str();
  if (auto outcome = parse_subcommand(app, args)) return {std::nullopt, *outcome};
  if (s.count <= 0) return {std::nullopt, usage_error("--count must be at least 1")};
  if (s.cpus <= 0) return {std::nullopt, usage_error("--cpu must be at least 1")};
  if (s.max_pods <= 0) return {std::nullopt, usage_error("--pods must be at least 1")};
  if (s.status_workers <= 0 || s.status_workers > 256) {
    return {std::nullopt, usage_error("--status-workers must be between 1 and 256")};
  }
  const std::optional<api::Quantity> bytes = api::Quantity::parse(memory);
  if (!bytes || bytes->value() <= 0) {
    return {std::nullopt, usage_error("--memory \"" + memory + "\" is not a positive quantity")};
  }
  s.memory_bytes = bytes->value();
  if (s.name_prefix.empty()) return {std::nullopt, usage_error("--name-prefix is empty")};
  return {std::move(cmd), {}};
}

int run_bench(const std::vector<std::string>& args, const Environment& env) {
  BenchParse parsed = parse_bench(args, env);
  if (!parsed.hollow_nodes) {
    std::fputs(parsed.exit.out.c_str(), stdout);
    std::fputs(parsed.exit.err.c_str(), stderr);
    return parsed.exit.exit_code;
  }
  HollowCommand& cmd = *parsed.hollow_nodes;
  auto fail = [](const Status& s) {
    std::fprintf(stderr, "k3c bench hollow-nodes: %s\n", s.message().c_str());
    return 1;
  };
  // Before any thread starts: the signal mask is inherited.
  auto signals = ShutdownSignals::install();
  if (!signals.is_ok()) return fail(signals.status());
  auto client = client_for(cmd.kubeconfig);
  if (!client.is_ok()) return fail(client.status());
  auto version = server_version(**client);
  if (!version.is_ok()) return fail(version.status());
  cmd.settings.kubelet_version = *version;
  const kubelet::MachineInfo host = kubelet::LinuxMachineProbe("/").probe();
  auto logger = log::for_role("hollow-nodes");
  hollow::HollowNodes nodes(**client, cmd.settings, host, SystemClock::instance());
  nodes.start();
  logger->info("{} hollow nodes {}0..{} against {}", cmd.settings.count,
               cmd.settings.name_prefix, cmd.settings.count - 1, cmd.kubeconfig);
  while (!(*signals)->stop_requested().wait_for(std::chrono::seconds(10))) {
    logger->info("{} nodes registered, {} pods reported running", nodes.nodes_registered(),
                 nodes.pods_reported());
  }
  logger->info("stopping");
  nodes.stop();
  logger->info("stopped");
  return 0;
}

}  // namespace k3c::cli
