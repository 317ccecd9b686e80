// The typed configuration of `k3c server` and `k3c agent`, built from layered settings
// (settings.h) with every value checked. Roles get narrow configs cut from these; nothing
// here touches the machine.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cli/environment.h"
#include "cli/settings.h"
#include "cli/values.h"
#include "core/status.h"
#include "roles/controllers/controller_settings.h"
#include "roles/kubelet/kubelet_settings.h"
#include "roles/scheduler/scheduler_settings.h"

namespace k3c::cli {

// The node this process runs and how it reaches its cluster; both commands have it.
struct NodeConfig {
  std::string data_dir;
  std::string config_file;  // the config file that was read; "" when none was
  bool debug = false;
  std::string log_file;             // "" = stderr only
  std::string node_name;            // "" = the host name
  std::vector<IpAddress> node_ips;  // at most one per family
  std::vector<NodeLabel> node_labels;
  std::vector<NodeTaint> node_taints;
  std::string token;
  std::string token_file;
  std::string server_url;            // https://HOST:PORT of a server to join; "" for none
  kubelet::KubeletSettings kubelet;  // from --kubelet-arg
  std::string private_registry = "/etc/k3c/registries.yaml";  // registries.yaml
};

enum class DatastoreSync : uint8_t { kFull, kNormal };

struct ServerConfig {
  NodeConfig node;

  IpAddress bind_address;
  uint16_t https_port = 6443;
  std::optional<IpAddress> advertise_address;
  std::vector<std::string> tls_sans;

  Cidr cluster_cidr;
  Cidr service_cidr;
  PortRange service_node_port_range;
  IpAddress cluster_dns;
  std::string cluster_domain;

  std::string write_kubeconfig;
  uint32_t write_kubeconfig_mode = 0600;

  std::string datastore_endpoint;  // as given; "" for the default
  std::string datastore_path;      // the SQLite file it names
  DatastoreSync datastore_sync = DatastoreSync::kFull;

  std::set<std::string> disabled;  // packaged components not to deploy
  bool disable_agent = false;
  bool disable_scheduler = false;
  bool disable_controller_manager = false;
  bool disable_kube_proxy = false;
  bool disable_network_policy = false;

  // From --kube-controller-manager-arg and --kube-scheduler-arg.
  controllers::ControllerManagerSettings controller_manager;
  scheduler::SchedulerSettings scheduler;
};

struct AgentConfig {
  NodeConfig node;
};

// Builds the typed config from `settings` (already layered; see settings.h), filling in the
// defaults. `env` decides the default data dir (/var/lib/k3c as root, $HOME/.k3c otherwise).
// Every error is kInvalid (or kNotImplemented for features not built yet) and names the
// flag, config key or environment variable and the value.
Result<ServerConfig> server_config_from(const Settings& settings, const Environment& env);
Result<AgentConfig> agent_config_from(const Settings& settings, const Environment& env);

// The data dir when none is given: /var/lib/k3c as root, else $HOME/.k3c.
Result<std::string> default_data_dir(const Environment& env);

}  // namespace k3c::cli
