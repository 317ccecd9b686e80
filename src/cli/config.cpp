// Typed configuration from layered settings (see config.h).
#include "cli/config.h"

#include <algorithm>
#include <cctype>

#include "cli/component_args.h"
#include "core/names.h"

namespace k3c::cli {
namespace {

// The T of the Result<T> a value parser returns.
template <typename R>
struct ResultOf;
template <typename T>
struct ResultOf<Result<T>> {
  using type = T;
};
template <typename Parse>
using ParsedType = typename ResultOf<decltype(std::declval<Parse>()(std::string_view()))>::type;

// Reads settings by flag name, applying a parser and turning its complaint into an error
// that names where the value came from and what it was.
class Lookup {
 public:
  explicit Lookup(const Settings& settings) : settings_(settings) {}

  // The value of a single-valued flag, or nullptr when no source set it.
  const SettingValue* find(std::string_view name) const {
    auto it = settings_.find(name);
    return it == settings_.end() || it->second.empty() ? nullptr : &it->second.back();
  }

  std::string text(std::string_view name, std::string fallback = "") const {
    const SettingValue* value = find(name);
    return value == nullptr ? std::move(fallback) : value->text;
  }

  // The parsed value of a single-valued flag, or nullopt when no source set it.
  template <typename Parse, typename T = ParsedType<Parse>>
  Result<std::optional<T>> typed(std::string_view name, Parse parse) const {
    const SettingValue* value = find(name);
    if (value == nullptr) return std::optional<T>();
    auto parsed = parse(value->text);
    if (!parsed.is_ok()) return reject(*value, parsed.status());
    return std::optional<T>(std::move(parsed).value());
  }

  // The parsed values of a list flag, in order.
  template <typename Parse, typename T = ParsedType<Parse>>
  Result<std::vector<T>> list(std::string_view name, Parse parse) const {
    std::vector<T> items;
    auto it = settings_.find(name);
    if (it == settings_.end()) return items;
    for (const SettingValue& value : it->second) {
      auto parsed = parse(value.text);
      if (!parsed.is_ok()) return reject(value, parsed.status());
      items.push_back(std::move(parsed).value());
    }
    return items;
  }

  // Hands each value of a list flag to `apply`, in order.
  template <typename Apply>
  Status each(std::string_view name, Apply apply) const {
    auto it = settings_.find(name);
    if (it == settings_.end()) return Status::ok();
    for (const SettingValue& value : it->second) {
      if (Status status = apply(value.text); !status.is_ok()) return reject(value, status);
    }
    return Status::ok();
  }

  Result<bool> flag(std::string_view name) const {
    ASSIGN_OR_RETURN(std::optional<bool> value, typed(name, parse_bool));
    return value.value_or(false);
  }

  static Status reject(const SettingValue& value, const Status& why) {
    return error(why.code() == Code::kOk ? Code::kInvalid : why.code(),
                 value.origin + ": invalid value \"" + value.text + "\": " + why.message());
  }

 private:
  const Settings& settings_;
};

Result<std::string> parse_node_name(std::string_view text) {
  RETURN_IF_ERROR(names::validate_dns1123_subdomain(text));
  return std::string(text);
}

// A certificate name: an IP address, or a DNS name, possibly a wildcard ("*.example.com").
Result<std::string> parse_san(std::string_view text) {
  if (IpAddress::parse(text).is_ok()) return std::string(text);
  std::string name(text);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::string_view host = name;
  if (host.starts_with("*.")) host.remove_prefix(2);
  if (!names::validate_dns1123_subdomain(host).is_ok()) {
    return error(Code::kInvalid, "not an IP address or DNS name");
  }
  return std::string(text);
}

Result<std::string> parse_https_url(std::string_view text) {
  if (!text.starts_with("https://") || text.size() == 8) {
    return error(Code::kInvalid, "must be an https:// URL such as https://10.0.0.1:6443");
  }
  return std::string(text);
}

Result<NodeConfig> node_config_from(const Lookup& in, const Environment& env) {
  NodeConfig node;
  if (const SettingValue* dir = in.find("data-dir")) {
    if (dir->text.empty()) return Lookup::reject(*dir, error(Code::kInvalid, "must not be empty"));
    node.data_dir = dir->text;
  } else {
    ASSIGN_OR_RETURN(node.data_dir, default_data_dir(env));
  }
  ASSIGN_OR_RETURN(node.debug, in.flag("debug"));
  node.log_file = in.text("log");
  ASSIGN_OR_RETURN(auto node_name, in.typed("node-name", parse_node_name));
  node.node_name = node_name.value_or("");
  ASSIGN_OR_RETURN(node.node_ips, in.list("node-ip", IpAddress::parse));
  if (node.node_ips.size() > 2 ||
      (node.node_ips.size() == 2 && node.node_ips[0].family == node.node_ips[1].family)) {
    return error(Code::kInvalid, "node-ip: at most one IPv4 and one IPv6 address");
  }
  ASSIGN_OR_RETURN(node.node_labels, in.list("node-label", NodeLabel::parse));
  ASSIGN_OR_RETURN(node.node_taints, in.list("node-taint", NodeTaint::parse));
  node.token = in.text("token");
  node.token_file = in.text("token-file");
  ASSIGN_OR_RETURN(auto server_url, in.typed("server", parse_https_url));
  node.server_url = server_url.value_or("");
  if (const SettingValue* file = in.find("private-registry")) {
    if (file->text.empty()) {
      return Lookup::reject(*file, error(Code::kInvalid, "must not be empty"));
    }
    node.private_registry = file->text;
  }
  RETURN_IF_ERROR(in.each(
      "kubelet-arg", [&](std::string_view arg) { return apply_kubelet_arg(arg, node.kubelet); }));
  for (auto [key, period] :
       {std::pair{"node-status-update-frequency", node.kubelet.node_status_update_frequency},
        std::pair{"node-status-report-frequency", node.kubelet.node_status_report_frequency},
        std::pair{"file-check-frequency", node.kubelet.file_check_frequency}}) {
    if (period.count() <= 0) {
      return error(Code::kInvalid, std::string("kubelet flag ") + key + ": must be positive");
    }
  }
  if (auto thresholds = kubelet::eviction_thresholds(node.kubelet.eviction); !thresholds.is_ok())
    return error(Code::kInvalid, "kubelet eviction flags: " + thresholds.status().message());
  if (node.kubelet.image_gc_low_threshold_percent >= node.kubelet.image_gc_high_threshold_percent) {
    return error(Code::kInvalid,
                 "kubelet flag image-gc-low-threshold: " +
                     std::to_string(node.kubelet.image_gc_low_threshold_percent) +
                     " must be less than image-gc-high-threshold " +
                     std::to_string(node.kubelet.image_gc_high_threshold_percent));
  }
  return node;
}

}  // namespace

namespace {

Status listener_from(const Lookup& in, ServerConfig& config) {
  ASSIGN_OR_RETURN(auto bind, in.typed("bind-address", IpAddress::parse));
  config.bind_address = bind ? *bind : *IpAddress::parse("0.0.0.0");
  ASSIGN_OR_RETURN(auto port, in.typed("https-listen-port", parse_port));
  config.https_port = port.value_or(6443);
  ASSIGN_OR_RETURN(config.advertise_address, in.typed("advertise-address", IpAddress::parse));
  ASSIGN_OR_RETURN(config.tls_sans, in.list("tls-san", parse_san));
  return Status::ok();
}

// A CIDR setting; k3s takes a comma list for dual-stack, which is not built yet.
Result<Cidr> single_cidr(const Lookup& in, std::string_view name, std::string_view fallback) {
  const SettingValue* value = in.find(name);
  if (value != nullptr && value->text.find(',') != std::string::npos) {
    return Lookup::reject(
        *value, error(Code::kNotImplemented, "dual-stack (two CIDRs) is not implemented yet"));
  }
  ASSIGN_OR_RETURN(auto cidr, in.typed(name, Cidr::parse));
  return cidr ? *cidr : *Cidr::parse(fallback);
}

Status networking_from(const Lookup& in, ServerConfig& config) {
  ASSIGN_OR_RETURN(config.cluster_cidr, single_cidr(in, "cluster-cidr", "10.42.0.0/16"));
  ASSIGN_OR_RETURN(config.service_cidr, single_cidr(in, "service-cidr", "10.43.0.0/16"));
  if (config.cluster_cidr.contains(config.service_cidr.network) ||
      config.service_cidr.contains(config.cluster_cidr.network)) {
    return error(Code::kInvalid, "cluster-cidr " + config.cluster_cidr.to_string() +
                                     " and service-cidr " + config.service_cidr.to_string() +
                                     " overlap");
  }
  ASSIGN_OR_RETURN(auto ports, in.typed("service-node-port-range", PortRange::parse));
  config.service_node_port_range = ports ? *ports : PortRange{30000, 32767};
  // As in k3s, the DNS service defaults to the 10th address of the service range, so a
  // changed service-cidr needs no matching cluster-dns.
  ASSIGN_OR_RETURN(auto dns, in.typed("cluster-dns", IpAddress::parse));
  if (!dns) {
    ASSIGN_OR_RETURN(config.cluster_dns, config.service_cidr.nth(10));
  } else if (!config.service_cidr.contains(*dns)) {
    return Lookup::reject(
        *in.find("cluster-dns"),
        error(Code::kInvalid, "not inside service-cidr " + config.service_cidr.to_string()));
  } else {
    config.cluster_dns = *dns;
  }
  ASSIGN_OR_RETURN(auto domain, in.typed("cluster-domain", parse_node_name));
  config.cluster_domain = domain.value_or("cluster.local");
  return Status::ok();
}

Result<DatastoreSync> parse_sync(std::string_view text) {
  if (text == "full") return DatastoreSync::kFull;
  if (text == "normal") return DatastoreSync::kNormal;
  return error(Code::kInvalid, "expected full or normal");
}

// "" and sqlite://PATH name the SQLite file; every other kind of datastore comes later.
// The message shows only the scheme: endpoints carry passwords.
Result<std::string> sqlite_path(std::string_view endpoint, const std::string& data_dir) {
  const std::string fallback = data_dir + "/server/db/state.db";
  if (endpoint.empty()) return fallback;
  if (endpoint.starts_with("sqlite://")) {
    std::string_view path = endpoint.substr(9);
    path = path.substr(0, path.find('?'));  // k3s-style ?_journal=WAL options are ours to set
    return path.empty() ? fallback : std::string(path);
  }
  const size_t scheme_end = endpoint.find("://");
  const std::string kind = scheme_end == std::string_view::npos
                               ? std::string("this kind of")
                               : std::string(endpoint.substr(0, scheme_end)) + "://";
  return error(Code::kNotImplemented,
               "datastore-endpoint: " + kind +
                   " datastores are not implemented yet (PostgreSQL comes later); leave it "
                   "empty or use sqlite://PATH");
}

Status datastore_from(const Lookup& in, ServerConfig& config) {
  config.datastore_endpoint = in.text("datastore-endpoint");
  ASSIGN_OR_RETURN(config.datastore_path,
                   sqlite_path(config.datastore_endpoint, config.node.data_dir));
  ASSIGN_OR_RETURN(auto sync, in.typed("datastore-sync", parse_sync));
  config.datastore_sync = sync.value_or(DatastoreSync::kFull);
  return Status::ok();
}

Result<std::string> parse_component(std::string_view text) {
  for (std::string_view known : disableable_components()) {
    if (text == known) return std::string(text);
  }
  return error(Code::kInvalid,
               "not a packaged component (coredns, servicelb, traefik, local-storage, "
               "metrics-server, runtimes)");
}

// Node IPAM cuts --cluster-cidr into node-cidr-mask-size slices (after both are parsed).
Status node_ipam_from(ServerConfig& config) {
  auto& cm = config.controller_manager;
  const Cidr& cluster = config.cluster_cidr;
  if (cluster.network.family != IpFamily::kV4) {
    if (!cm.allocate_node_cidrs) return Status::ok();
    return error(Code::kNotImplemented,
                 "cluster-cidr " + cluster.to_string() +
                     ": node IPAM for IPv6 is not implemented yet (pass "
                     "--kube-controller-manager-arg allocate-node-cidrs=false)");
  }
  uint32_t network = 0;
  for (size_t i = 0; i < 4; ++i) network = network << 8 | cluster.network.bytes[i];
  cm.cluster_cidr = {network, cluster.prefix};
  const int mask = cm.node_cidr_mask_size;
  if (cm.allocate_node_cidrs &&
      (mask < cluster.prefix || mask > 32 || mask - cluster.prefix > 16)) {
    return error(Code::kInvalid,
                 "kube-controller-manager-arg node-cidr-mask-size=" + std::to_string(mask) +
                     ": must be at least the cluster-cidr's prefix length (" +
                     std::to_string(cluster.prefix) + "), at most 16 more, and at most 32");
  }
  return Status::ok();
}

Status components_from(const Lookup& in, ServerConfig& config) {
  ASSIGN_OR_RETURN(auto disabled, in.list("disable", parse_component));
  config.disabled = std::set<std::string>(disabled.begin(), disabled.end());
  ASSIGN_OR_RETURN(config.disable_agent, in.flag("disable-agent"));
  ASSIGN_OR_RETURN(config.disable_scheduler, in.flag("disable-scheduler"));
  ASSIGN_OR_RETURN(config.disable_controller_manager, in.flag("disable-controller-manager"));
  ASSIGN_OR_RETURN(config.disable_kube_proxy, in.flag("disable-kube-proxy"));
  ASSIGN_OR_RETURN(config.disable_network_policy, in.flag("disable-network-policy"));
  RETURN_IF_ERROR(in.each("kube-controller-manager-arg", [&](std::string_view arg) {
    return apply_controller_manager_arg(arg, config.controller_manager);
  }));
  RETURN_IF_ERROR(in.each("kube-scheduler-arg", [&](std::string_view arg) {
    return apply_scheduler_arg(arg, config.scheduler);
  }));
  return node_ipam_from(config);
}

Status kubeconfig_from(const Lookup& in, ServerConfig& config) {
  config.write_kubeconfig = in.text("write-kubeconfig", "/etc/k3c/k3c.yaml");
  ASSIGN_OR_RETURN(auto mode, in.typed("write-kubeconfig-mode", parse_file_mode));
  config.write_kubeconfig_mode = mode.value_or(0600);
  return Status::ok();
}

}  // namespace

Result<ServerConfig> server_config_from(const Settings& settings, const Environment& env) {
  const Lookup in(settings);
  ServerConfig config;
  ASSIGN_OR_RETURN(config.node, node_config_from(in, env));
  RETURN_IF_ERROR(listener_from(in, config));
  RETURN_IF_ERROR(networking_from(in, config));
  RETURN_IF_ERROR(kubeconfig_from(in, config));
  RETURN_IF_ERROR(datastore_from(in, config));
  RETURN_IF_ERROR(components_from(in, config));
  if (!config.node.server_url.empty()) {
    return error(Code::kNotImplemented,
                 in.find("server")->origin +
                     ": joining another server is not implemented yet; k3c server runs a "
                     "single-server cluster");
  }
  return config;
}

Result<AgentConfig> agent_config_from(const Settings& settings, const Environment& env) {
  const Lookup in(settings);
  AgentConfig config;
  ASSIGN_OR_RETURN(config.node, node_config_from(in, env));
  if (config.node.server_url.empty()) {
    return error(Code::kInvalid,
                 "k3c agent needs the server to join: pass --server https://HOST:6443 "
                 "(or set K3C_URL)");
  }
  if (config.node.token.empty() && config.node.token_file.empty()) {
    return error(Code::kInvalid,
                 "k3c agent needs the cluster token: pass --token or --token-file (or set "
                 "K3C_TOKEN)");
  }
  return config;
}

Result<std::string> default_data_dir(const Environment& env) {
  if (env.is_root) return std::string("/var/lib/k3c");
  const std::string home = env.get("HOME");
  if (home.empty()) {
    return error(Code::kInvalid, "not running as root and HOME is not set: pass --data-dir");
  }
  return home + "/.k3c";
}

}  // namespace k3c::cli
