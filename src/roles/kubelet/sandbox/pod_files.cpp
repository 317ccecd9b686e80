#include "roles/kubelet/sandbox/pod_files.h"

#include <algorithm>
#include <sstream>

#include "api/json_fields.h"

namespace k3c::kubelet {
namespace {

using nlohmann::json;

// Upstream limits (validation.MaxDNSNameservers, MaxDNSSearchPaths).
constexpr size_t kMaxNameservers = 3;
constexpr size_t kMaxSearches = 32;

void add_unique(std::vector<std::string>& list, const std::string& value) {
  if (!value.empty() && std::find(list.begin(), list.end(), value) == list.end())
    list.push_back(value);
}

std::string option_name(const std::string& option) { return option.substr(0, option.find(':')); }

// dnsConfig appended to what the policy gave: servers and searches deduplicated, options
// replaced by name.
void merge_dns_config(ResolvConf& conf, const json& dns_config) {
  for (const json& server : api::member(dns_config, "nameservers"))
    if (server.is_string()) add_unique(conf.nameservers, server.get<std::string>());
  for (const json& search : api::member(dns_config, "searches"))
    if (search.is_string()) add_unique(conf.searches, search.get<std::string>());
  for (const json& option : api::member(dns_config, "options")) {
    std::string name = api::text(option, "name");
    if (name.empty()) continue;
    const json& value = api::member(option, "value");
    std::string rendered = value.is_string() ? name + ":" + value.get<std::string>() : name;
    auto same = std::find_if(conf.options.begin(), conf.options.end(),
                             [&](const std::string& o) { return option_name(o) == name; });
    if (same != conf.options.end()) {
      *same = rendered;
    } else {
      conf.options.push_back(rendered);
    }
  }
}

std::string truncated_hostname(std::string name) {
  if (name.size() > 63) {
    name.resize(63);
    while (!name.empty() && (name.back() == '-' || name.back() == '.')) name.pop_back();
  }
  return name;
}

std::string host_aliases(const json& pod) {
  const json& aliases = api::member(api::member(pod, "spec"), "hostAliases");
  if (!aliases.is_array() || aliases.empty()) return "";
  std::string out = "\n# Entries added by HostAliases.\n";
  for (const json& alias : aliases) {
    out += api::text(alias, "ip");
    for (const json& name : api::member(alias, "hostnames"))
      if (name.is_string()) out += "\t" + name.get<std::string>();
    out += "\n";
  }
  return out;
}

}  // namespace

std::string ResolvConf::render() const {
  std::string out;
  for (const std::string& server : nameservers) out += "nameserver " + server + "\n";
  if (!searches.empty()) {
    out += "search";
    for (const std::string& s : searches) out += " " + s;
    out += "\n";
  }
  if (!options.empty()) {
    out += "options";
    for (const std::string& o : options) out += " " + o;
    out += "\n";
  }
  return out;
}

ResolvConf parse_resolv_conf(std::string_view text) {
  ResolvConf conf;
  std::istringstream lines{std::string(text)};
  std::string line;
  while (std::getline(lines, line)) {
    if (auto comment = line.find_first_of("#;"); comment != std::string::npos)
      line.resize(comment);
    std::istringstream words(line);
    std::string key, word;
    if (!(words >> key)) continue;
    if (key == "nameserver") {
      if (words >> word) conf.nameservers.push_back(word);
    } else if (key == "search" || key == "domain") {
      conf.searches.clear();  // the last search/domain line wins, as in the resolver
      while (words >> word) conf.searches.push_back(word);
    } else if (key == "options") {
      while (words >> word) conf.options.push_back(word);
    }
  }
  return conf;
}

ResolvConf pod_resolv_conf(const json& pod, const ClusterDns& cluster, const ResolvConf& host,
                           std::string* warning) {
  const json& spec = api::member(pod, "spec");
  std::string policy = api::text(spec, "dnsPolicy");
  if (policy.empty()) policy = "ClusterFirst";
  const bool host_network = api::member(spec, "hostNetwork") == true;
  ResolvConf conf;
  const bool use_cluster = policy == "ClusterFirstWithHostNet" ||
                           (policy == "ClusterFirst" && !host_network);
  if (policy == "None") {
    // Only dnsConfig.
  } else if (use_cluster && !cluster.servers.empty()) {
    conf.nameservers = cluster.servers;
    const std::string ns = api::text(api::member(pod, "metadata"), "namespace");
    conf.searches = {ns + ".svc." + cluster.domain, "svc." + cluster.domain, cluster.domain};
    for (const std::string& search : host.searches) add_unique(conf.searches, search);
    conf.options = {"ndots:5"};
  } else {
    if (use_cluster && warning) {
      *warning =
          "kubelet does not have ClusterDNS IP configured and cannot create Pod using \"" +
          policy + "\" policy. Falling back to \"Default\" policy.";
    }
    conf = host;
  }
  merge_dns_config(conf, api::member(spec, "dnsConfig"));
  if (conf.nameservers.size() > kMaxNameservers) conf.nameservers.resize(kMaxNameservers);
  if (conf.searches.size() > kMaxSearches) conf.searches.resize(kMaxSearches);
  return conf;
}

std::string pod_hostname(const json& pod) {
  std::string hostname = api::text(api::member(pod, "spec"), "hostname");
  if (hostname.empty()) hostname = api::text(api::member(pod, "metadata"), "name");
  return truncated_hostname(hostname);
}

std::string pod_hosts_file(const json& pod, const std::vector<std::string>& pod_ips,
                           const std::string& cluster_domain) {
  std::string out =
      "# Kubernetes-managed hosts file.\n"
      "127.0.0.1\tlocalhost\n"
      "::1\tlocalhost ip6-localhost ip6-loopback\n"
      "fe00::0\tip6-localnet\n"
      "fe00::0\tip6-mcastprefix\n"
      "fe00::1\tip6-allnodes\n"
      "fe00::2\tip6-allrouters\n";
  const std::string hostname = pod_hostname(pod);
  const std::string subdomain = api::text(api::member(pod, "spec"), "subdomain");
  const std::string ns = api::text(api::member(pod, "metadata"), "namespace");
  for (const std::string& ip : pod_ips) {
    if (subdomain.empty()) {
      out += ip + "\t" + hostname + "\n";
    } else {
      out += ip + "\t" + hostname + "." + subdomain + "." + ns + ".svc." + cluster_domain + "\t" +
             hostname + "\n";
    }
  }
  return out + host_aliases(pod);
}

std::string host_network_hosts_file(const json& pod, std::string_view node_hosts) {
  return std::string(node_hosts) + host_aliases(pod);
}

}  // namespace k3c::kubelet
