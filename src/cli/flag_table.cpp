// The k3c flag table (see flag_table.h). Names, meanings and defaults follow k3s; the help
// texts are our own.
#include "cli/flag_table.h"

#include <array>

namespace k3c::cli {
namespace {

constexpr bool S = true;  // taken by `k3c server`
constexpr bool A = true;  // taken by `k3c agent`
constexpr bool no = false;

using K = FlagKind;

constexpr std::array kFlags = {
    // name, short, kind, group, value, default, env, server, agent, help
    FlagSpec{"config", "c", K::kString, "Config", "FILE", "/etc/k3c/config.yaml", "K3C_CONFIG_FILE",
             S, A, "Read settings from this YAML file (keys are long flag names)"},
    FlagSpec{"debug", "", K::kBool, "Logging", "", "", "", S, A, "Log at debug level"},
    FlagSpec{"log", "", K::kString, "Logging", "FILE", "", "", S, A,
             "Also append the log to this file"},
    FlagSpec{"data-dir", "d", K::kString, "Data", "DIR", "/var/lib/k3c, or $HOME/.k3c if not root",
             "K3C_DATA_DIR", S, A, "Directory for the node's state"},
    FlagSpec{"bind-address", "", K::kString, "Listener", "IP", "0.0.0.0", "", S, no,
             "Address the API server listens on"},
    FlagSpec{"https-listen-port", "", K::kString, "Listener", "PORT", "6443", "", S, no,
             "Port the API server listens on"},
    FlagSpec{"advertise-address", "", K::kString, "Listener", "IP", "node IP", "", S, no,
             "Address other nodes and clients use to reach the API server"},
    FlagSpec{"tls-san", "", K::kList, "Listener", "NAME", "", "", S, no,
             "Extra host name or IP for the serving certificate (repeatable)"},
    FlagSpec{"cluster-cidr", "", K::kString, "Networking", "CIDR", "10.42.0.0/16", "", S, no,
             "Range pod IPs are taken from"},
    FlagSpec{"service-cidr", "", K::kString, "Networking", "CIDR", "10.43.0.0/16", "", S, no,
             "Range ClusterIPs of services are taken from"},
    FlagSpec{"service-node-port-range", "", K::kString, "Networking", "FIRST-LAST", "30000-32767",
             "", S, no, "Ports reserved for NodePort services"},
    FlagSpec{"cluster-dns", "", K::kString, "Networking", "IP", "10th address of service-cidr", "",
             S, no, "ClusterIP of the cluster DNS service"},
    FlagSpec{"cluster-domain", "", K::kString, "Networking", "DOMAIN", "cluster.local", "", S, no,
             "DNS domain of the cluster"},
    FlagSpec{"write-kubeconfig", "o", K::kString, "Client", "FILE", "/etc/k3c/k3c.yaml",
             "K3C_KUBECONFIG_OUTPUT", S, no, "Where to write the admin kubeconfig"},
    FlagSpec{"write-kubeconfig-mode", "", K::kString, "Client", "MODE", "0600",
             "K3C_KUBECONFIG_MODE", S, no, "File mode of the admin kubeconfig, in octal"},
    FlagSpec{"token", "t", K::kString, "Cluster", "TOKEN", "", "K3C_TOKEN", S, A,
             "Shared secret nodes use to join the cluster"},
    FlagSpec{"token-file", "", K::kString, "Cluster", "FILE", "", "K3C_TOKEN_FILE", S, A,
             "Read the token from this file"},
    FlagSpec{"server", "s", K::kString, "Cluster", "URL", "", "K3C_URL", S, A,
             "https:// URL of a server to join"},
    FlagSpec{"datastore-endpoint", "", K::kString, "Database", "DSN", "SQLite in the data dir",
             "K3C_DATASTORE_ENDPOINT", S, no, "Datastore to use: empty or sqlite://PATH"},
    FlagSpec{"datastore-sync", "", K::kString, "Database", "full|normal", "full", "", S, no,
             "full: every acknowledged write is on disk; normal: a power loss may drop the "
             "last writes"},
    FlagSpec{"disable", "", K::kList, "Components", "NAME", "", "", S, no,
             "Do not deploy this packaged component (repeatable): coredns, servicelb, traefik, "
             "local-storage, metrics-server, runtimes"},
    FlagSpec{"disable-agent", "", K::kBool, "Components", "", "", "", S, no,
             "Run only the control plane, no node on this machine"},
    FlagSpec{"disable-scheduler", "", K::kBool, "Components", "", "", "", S, no,
             "Do not run the scheduler"},
    FlagSpec{"disable-controller-manager", "", K::kBool, "Components", "", "", "", S, no,
             "Do not run the controller manager"},
    FlagSpec{"disable-kube-proxy", "", K::kBool, "Components", "", "", "", S, no,
             "Do not run the service proxy"},
    FlagSpec{"disable-network-policy", "", K::kBool, "Components", "", "", "", S, no,
             "Do not enforce NetworkPolicies"},
    FlagSpec{"kube-controller-manager-arg", "", K::kList, "Components", "KEY=VALUE", "", "", S, no,
             "Setting for the controller manager, as its upstream flag name (repeatable)"},
    FlagSpec{"kube-scheduler-arg", "", K::kList, "Components", "KEY=VALUE", "", "", S, no,
             "Setting for the scheduler, as its upstream flag name (repeatable)"},
    FlagSpec{"node-name", "", K::kString, "Node", "NAME", "host name", "K3C_NODE_NAME", S, A,
             "Name this node registers under"},
    FlagSpec{"node-ip", "", K::kList, "Node", "IP", "", "", S, A,
             "Address to advertise for this node (repeatable: one IPv4, one IPv6)"},
    FlagSpec{"node-label", "", K::kList, "Node", "KEY=VALUE", "", "", S, A,
             "Label to register the node with (repeatable)"},
    FlagSpec{"private-registry", "", K::kString, "Agent/Runtime", "FILE",
             "/etc/k3c/registries.yaml", "", S, A,
             "Private registry configuration file (mirrors, credentials, TLS)"},
    FlagSpec{"node-taint", "", K::kList, "Node", "KEY=VALUE:EFFECT", "", "", S, A,
             "Taint to register the node with (repeatable)"},
    FlagSpec{"kubelet-arg", "", K::kList, "Node", "KEY=VALUE", "", "", S, A,
             "Setting for the kubelet, as its upstream flag name (repeatable)"},
};

constexpr std::array<std::string_view, 6> kDisableable = {
    "coredns", "servicelb", "traefik", "local-storage", "metrics-server", "runtimes"};

}  // namespace

std::string_view command_name(Command command) {
  return command == Command::kServer ? "server" : "agent";
}

std::span<const FlagSpec> all_flags() { return kFlags; }

const FlagSpec* find_flag(std::string_view name) {
  for (const FlagSpec& spec : kFlags) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

std::span<const std::string_view> disableable_components() { return kDisableable; }

}  // namespace k3c::cli
