// `k3c agent`: join a server, then run the worker roles against it over HTTPS (see server.h).
#include <cstdio>

#include "cli/join.h"
#include "cli/server.h"
#include "cli/worker_roles.h"
#include "client/https_client.h"
#include "pki/pki.h"
#include "roles/kubelet/machine_probe.h"
#include "roles/kubelet/node_status.h"
#include "runtime/files.h"

namespace k3c::cli {
namespace {

// How long a join waits before trying an unreachable server again.
constexpr std::chrono::seconds kJoinRetry{2};
// Until the server hands its cluster settings to agents, they are k3s's defaults.
constexpr const char* kClusterDns = "10.43.0.10";
constexpr const char* kClusterDomain = "cluster.local";

Result<std::string> agent_token(const NodeConfig& node) {
  if (!node.token.empty()) return node.token;
  ASSIGN_OR_RETURN(std::string text, runtime::read_file(node.token_file, 4096));
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  return text;
}

// Joins, trying again while the server cannot be reached (it may be starting) and no stop
// was asked for; a refusal (token, CA, node password) ends it at once.
Result<AgentCredentials> join_until_stopped(const JoinRequest& request,
                                            const ShutdownSignals& signals,
                                            const std::shared_ptr<spdlog::logger>& logger) {
  // As k3s: a token without its K10<hash>:: part pins no CA, so whoever answers first at the
  // address gets the token's password.
  if (auto token = pki::parse_token(request.token); token.is_ok() && token->ca_hash.empty()) {
    logger->warn(
        "the token carries no CA hash: the server's CA is trusted unchecked "
        "(use the full K10... token from the server's token file)");
  }
  for (;;) {
    Result<AgentCredentials> joined = join_server(request);
    const Code code = joined.status().code();
    if (joined.is_ok() || (code != Code::kServiceUnavailable && code != Code::kTimeout))
      return joined;
    logger->warn("joining {}: {}; trying again", request.server_url, joined.status().message());
    if (signals.stop_requested().wait_for(kJoinRetry))
      return error(Code::kServiceUnavailable, "stopped before the server could be reached");
  }
}

// The kubelet of a joined node: the apiserver over HTTPS with the node's client certificate,
// the kubelet API served with the certificate the server issued.
kubelet::KubeletConfig agent_kubelet_config(const AgentConfig& config,
                                            const AgentCredentials& creds) {
  kubelet::KubeletConfig k = kubelet_config(config.node, kClusterDns, kClusterDomain);
  k.tls_cert_file = creds.serving.cert_path;
  k.tls_key_file = creds.serving.key_path;
  k.client_ca_file = creds.client_ca_file;
  client::HttpsClientOptions options;
  options.server = config.node.server_url;
  options.tls.ca_pem = creds.server_ca_pem;
  options.tls.cert_pem = creds.client.cert_pem;
  options.tls.key_pem = creds.client.key_pem;
  k.client = [options]() -> Result<std::unique_ptr<client::Client>> {
    ASSIGN_OR_RETURN(std::unique_ptr<client::HttpsClient> made, client::HttpsClient::make(options));
    return std::unique_ptr<client::Client>(std::move(made));
  };
  return k;
}

// The name and addresses the kubelet will report (node_status.cpp): --node-name, else the
// host name; --node-ip, else the default route's IPv4 address (else 127.0.0.1). The serving
// certificate must name them: the API server dials the reported InternalIP.
void fill_node_identity(const NodeConfig& node, JoinRequest& join) {
  const kubelet::MachineInfo machine = kubelet::LinuxMachineProbe(node.data_dir).probe();
  join.node_name = kubelet::node_name_for(node.node_name, machine.hostname);
  for (const IpAddress& ip : node.node_ips) join.node_ips.push_back(ip.to_string());
  if (join.node_ips.empty()) join.node_ips.push_back(machine.default_ipv4.value_or("127.0.0.1"));
}

}  // namespace

int run_agent(const AgentConfig& config, const Environment& env) {
  auto signals = start_process("agent", config.node);
  if (!signals.is_ok()) {
    std::fprintf(stderr, "k3c agent: %s\n", signals.status().message().c_str());
    return 1;
  }
  auto logger = log::for_role("agent");
  JoinRequest join;
  join.server_url = config.node.server_url;
  fill_node_identity(config.node, join);
  join.agent_dir = config.node.data_dir + "/agent";
  Result<std::string> token = agent_token(config.node);
  if (!token.is_ok()) {
    logger->error("not joining: the token: {}", token.status().message());
    return 1;
  }
  join.token = *token;
  Result<AgentCredentials> creds = join_until_stopped(join, **signals, logger);
  if (!creds.is_ok()) {
    logger->error("not joining {}: {}", join.server_url, creds.status().message());
    return 1;
  }
  logger->info("joined {} as node {}; wrote {}", join.server_url, join.node_name,
               creds->kubeconfig);
  auto puller = node_puller(config.node);
  if (!puller.is_ok()) {
    logger->error("not starting: {}", puller.status().message());
    return 1;
  }
  std::vector<std::string> missing = {"network"};
  return run_roles(worker_roles(agent_kubelet_config(config, *creds), std::move(*puller)),
                   **signals, env, missing, logger);
}

}  // namespace k3c::cli
