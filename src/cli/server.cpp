// `k3c server` and `k3c agent` (see server.h).
#include "cli/server.h"

#include <cstdio>

#include "cli/data_dir.h"
#include "cli/store_role.h"
#include "cli/worker_roles.h"
#include "client/shared_objects.h"
#include "core/ids.h"
#include "core/lifecycle.h"
#include "core/log.h"
#include "core/sd_notify.h"
#include "core/signals.h"
#include "core/text.h"
#include "roles/apiserver/api_server.h"
#include "roles/controllers/controller_manager.h"
#include "roles/scheduler/role/scheduler_role.h"

namespace k3c::cli {
namespace {

// How long the roles get, together, to stop after SIGTERM.
constexpr std::chrono::seconds kStopBudget{10};

// Tells the service manager, if any; failing to is worth a warning, never a stop.
void notify(const Environment& env, std::string_view state,
            const std::shared_ptr<spdlog::logger>& logger) {
  Status status = sd_notify(env.get("NOTIFY_SOCKET"), state);
  if (!status.is_ok()) logger->warn("sd_notify {}: {}", state, status.message());
}

apiserver::ApiServerConfig apiserver_config(const ServerConfig& config) {
  apiserver::ApiServerConfig a;
  a.tls_dir = config.node.data_dir + "/server/tls";
  a.token_path = config.node.data_dir + "/server/token";
  a.bind_address = config.bind_address.to_string();
  a.port = config.https_port;
  if (config.advertise_address) a.advertise_address = config.advertise_address->to_string();
  a.tls_sans = config.tls_sans;
  if (config.advertise_address) a.tls_sans.push_back(config.advertise_address->to_string());
  for (const auto& ip : config.node.node_ips) a.tls_sans.push_back(ip.to_string());
  a.cluster_domain = config.cluster_domain;
  // The `kubernetes` Service takes the first address of the service range.
  a.first_service_ip = config.service_cidr.nth(1).value().to_string();
  a.service_cidr = config.service_cidr.to_string();
  a.node_port_first = config.service_node_port_range.first;
  a.node_port_last = config.service_node_port_range.last;
  a.kubeconfig_path = config.write_kubeconfig;
  a.kubeconfig_mode = config.write_kubeconfig_mode;
  return a;
}

// The server's own node: its kubelet reaches the apiserver in-process and issues its serving
// certificate from the server's PKI.
kubelet::KubeletConfig server_kubelet_config(const ServerConfig& config) {
  kubelet::KubeletConfig k =
      kubelet_config(config.node, config.cluster_dns.to_string(), config.cluster_domain);
  k.tls_dir = config.node.data_dir + "/server/tls";
  k.control_plane = true;
  return k;
}

// `puller` is null without the agent.
std::vector<std::shared_ptr<Role>> server_roles(
    const ServerConfig& config, std::shared_ptr<const runtime::registry::Puller> puller) {
  auto store = std::make_shared<StoreRole>(store_options(config));
  // The kubelet of this node, reached by the API server in-process.
  auto kubelets = std::make_shared<http::LocalEndpoints>();
  apiserver::ApiServerConfig a = apiserver_config(config);
  a.kubelets = kubelets;
  auto components = std::make_shared<apiserver::ComponentProbes>();
  a.components = components;
  auto apiserver =
      std::make_shared<apiserver::ApiServerRole>(std::move(a), [store] { return store->store(); });
  std::vector<std::shared_ptr<Role>> roles = {store, apiserver};
  // One parsed tree per object version for the informers of every role in this process.
  auto shared_objects = std::make_shared<client::SharedObjects>();
  // The controllers' and the scheduler's pods are cached trimmed; those of this server's own
  // node stay whole, so that they are one tree with the kubelet's (which needs all of them).
  const client::CacheTransform pod_transform = client::control_plane_pods(
      config.disable_agent ? "" : kubelet::node_name_for(config.node.node_name, host_name()));
  std::weak_ptr<Role> controller_manager_role, scheduler_role;
  if (!config.disable_controller_manager) {
    controllers::ControllerManagerConfig cm;
    cm.handler = [apiserver](http::Request& r) { return apiserver->handle(r); };
    cm.root_ca_pem = [apiserver] { return apiserver->server_ca_pem(); };
    cm.identity = host_name() + "_" + new_uuid();
    cm.settings = config.controller_manager;
    cm.shared_objects = shared_objects;
    cm.pod_transform = pod_transform;
    cm.settings.local_storage = !config.disabled.count("local-storage");
    cm.settings.cluster_signing_dir = config.node.data_dir + "/server/tls";
    cm.settings.local_storage_dir = config.node.data_dir + "/storage";
    cm.settings.local_node_name = kubelet::node_name_for(config.node.node_name, host_name());
    auto role = std::make_shared<controllers::ControllerManagerRole>(std::move(cm));
    controller_manager_role = role;
    roles.push_back(role);
  }
  if (!config.disable_scheduler) {
    scheduler::SchedulerConfig sc;
    sc.handler = [apiserver](http::Request& r) { return apiserver->handle(r); };
    sc.identity = host_name() + "_" + new_uuid();
    sc.settings = config.scheduler;
    sc.shared_objects = shared_objects;
    sc.pod_transform = pod_transform;
    auto role = std::make_shared<scheduler::SchedulerRole>(std::move(sc));
    scheduler_role = role;
    roles.push_back(role);
  }
  // `kubectl get componentstatuses`: the scheduler and the controller manager of this server.
  // `disabled_by`: the flag that switched the component off, "" when it runs.
  auto probe = [](std::weak_ptr<Role> role, std::string what, std::string disabled_by) {
    return [role, what, disabled_by]() -> Status {
      if (!disabled_by.empty()) {
        return error(Code::kServiceUnavailable,
                     "k3c runs no " + what + " in this server (" + disabled_by + ")");
      }
      auto r = role.lock();
      if (r && r->ready()) return Status::ok();
      return error(Code::kServiceUnavailable, "the " + what + " is not running");
    };
  };
  components->add("scheduler", probe(scheduler_role, "scheduler",
                                     config.disable_scheduler ? "--disable-scheduler" : ""));
  components->add("controller-manager",
                  probe(controller_manager_role, "controller manager",
                        config.disable_controller_manager ? "--disable-controller-manager" : ""));
  if (!config.disable_agent) {
    kubelet::KubeletConfig k = server_kubelet_config(config);
    k.handler = [apiserver](http::Request& r) { return apiserver->handle(r); };
    k.endpoints = kubelets;
    k.shared_objects = shared_objects;
    for (auto& role : worker_roles(std::move(k), std::move(puller))) roles.push_back(role);
  }
  return roles;
}

}  // namespace

std::vector<std::string> roles_not_built(const ServerConfig& config) {
  std::vector<std::string> names;
  if (!config.disable_agent) {
    names.push_back("network");
    if (!config.disable_kube_proxy) names.push_back("proxy");
    if (!config.disabled.contains("coredns")) names.push_back("dns");
  }
  return names;
}

Result<std::unique_ptr<ShutdownSignals>> start_process(std::string_view command,
                                                       const NodeConfig& node) {
  // First, before any thread exists, so that every thread inherits the blocked mask.
  auto signals = ShutdownSignals::install();
  if (!signals.is_ok()) return signals.status();
  if (std::string failed = log::init({node.debug, node.log_file}); !failed.empty())
    return error(Code::kInvalid, failed);
  auto logger = log::for_role(command);
  if (!node.config_file.empty()) logger->info("read {}", node.config_file);
  if (Status status = prepare_data_dir(node.data_dir); !status.is_ok())
    return error(status.code(), "data dir: " + status.message());
  return signals;
}

int run_roles(std::vector<std::shared_ptr<Role>> roles, const ShutdownSignals& signals,
              const Environment& env, const std::vector<std::string>& missing,
              const std::shared_ptr<spdlog::logger>& logger) {
  RoleRunner runner(std::move(roles));
  if (Status status = runner.start_all(); !status.is_ok()) {
    logger->error("not starting: {}", status.message());
    return 1;
  }
  logger->info("running roles: {}", join(runner.running(), ", "));
  if (!missing.empty())
    logger->warn("not a complete cluster yet: roles not built: {}", join(missing, ", "));
  notify(env, "READY=1", logger);

  signals.stop_requested().wait();
  notify(env, "STOPPING=1", logger);
  StopReport report = runner.stop_all(kStopBudget);
  if (!report.overran.empty()) {
    logger->warn("stopped, except {} which overran the {} s deadline", join(report.overran, ", "),
                 kStopBudget.count());
  } else {
    logger->info("stopped");
  }
  return 0;
}

int run_server(const ServerConfig& config, const Environment& env) {
  auto signals = start_process("server", config.node);
  if (!signals.is_ok()) {
    std::fprintf(stderr, "k3c server: %s\n", signals.status().message().c_str());
    return 1;
  }
  auto logger = log::for_role("server");
  std::shared_ptr<const runtime::registry::Puller> puller;
  if (!config.disable_agent) {
    auto made = node_puller(config.node);
    if (!made.is_ok()) {
      logger->error("not starting: {}", made.status().message());
      return 1;
    }
    puller = std::move(*made);
  }
  return run_roles(server_roles(config, std::move(puller)), **signals, env, roles_not_built(config),
                   logger);
}

}  // namespace k3c::cli
