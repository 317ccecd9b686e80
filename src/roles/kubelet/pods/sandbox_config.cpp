// A pod's sandbox config (see sandbox_config.h).
#include "roles/kubelet/pods/sandbox_config.h"

#include "roles/kubelet/pods/labels.h"
#include "roles/kubelet/pods/qos.h"

namespace k3c::kubelet {

using nlohmann::json;

std::string pod_resolv_conf(const json& pod, const DnsSettings& dns) {
  const json spec = pod.value("spec", json::object());
  std::string policy = spec.value("dnsPolicy", "ClusterFirst");
  const bool host_network = spec.value("hostNetwork", false);
  if (policy == "ClusterFirst" && host_network) policy = "Default";
  if (policy == "ClusterFirstWithHostNet") policy = "ClusterFirst";
  const json config = spec.value("dnsConfig", json::object());
  std::vector<std::string> servers, searches, options;
  if (policy == "ClusterFirst") {
    const std::string ns = pod.value("metadata", json::object()).value("namespace", "default");
    servers = {dns.cluster_dns};
    searches = {ns + ".svc." + dns.cluster_domain, "svc." + dns.cluster_domain, dns.cluster_domain};
    options = {"ndots:5"};
  } else if (policy != "None" && config.empty()) {
    return "";  // Default: the host's file
  }
  for (const auto& s : config.value("nameservers", json::array()))
    servers.push_back(s.get<std::string>());
  for (const auto& s : config.value("searches", json::array()))
    searches.push_back(s.get<std::string>());
  for (const auto& o : config.value("options", json::array())) {
    std::string option = o.value("name", "");
    if (o.contains("value") && o["value"].is_string())
      option += ":" + o["value"].get<std::string>();
    // A later option of the same name replaces the earlier (ndots from dnsConfig wins).
    const std::string name = option.substr(0, option.find(':'));
    std::erase_if(options, [&](const std::string& x) { return x.substr(0, x.find(':')) == name; });
    options.push_back(option);
  }
  std::string out;
  if (!searches.empty()) {
    out += "search";
    for (const auto& s : searches) out += " " + s;
    out += "\n";
  }
  for (const auto& s : servers) out += "nameserver " + s + "\n";
  if (!options.empty()) {
    out += "options";
    for (const auto& o : options) out += " " + o;
    out += "\n";
  }
  return out;
}

runtime::SandboxConfig sandbox_config(const json& pod, uint32_t attempt, const DnsSettings& dns,
                                      const std::string& log_root) {
  const json meta = pod.value("metadata", json::object());
  const json spec = pod.value("spec", json::object());
  runtime::SandboxConfig c;
  c.pod_uid = meta.value("uid", "");
  c.pod_name = meta.value("name", "");
  c.pod_namespace = meta.value("namespace", "");
  c.attempt = attempt;
  c.hostname = spec.value("hostname", "");
  if (c.hostname.empty()) c.hostname = c.pod_name;
  c.host_network = spec.value("hostNetwork", false);
  c.host_pid = spec.value("hostPID", false);
  c.host_ipc = spec.value("hostIPC", false);
  c.share_process_namespace = spec.value("shareProcessNamespace", false);
  c.resolv_conf = pod_resolv_conf(pod, dns);
  // Upstream's managed hosts file; the pod IP line needs the IP the sandbox gets, which the
  // runtime adds (it is not known before the sandbox exists).
  c.hosts =
      "# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost "
      "ip6-loopback\nfe00::0\tip6-localnet\nfe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\n"
      "fe00::2\tip6-allrouters\n";
  const json status = pod.value("status", json::object());
  std::string qos = status.value("qosClass", "");
  if (qos.empty()) qos = pod_qos_class(pod);
  c.cgroup_parent = pod_cgroup_parent(qos, c.pod_uid);
  c.log_directory = log_root + "/" + c.pod_namespace + "_" + c.pod_name + "_" + c.pod_uid;
  c.labels = {{labels::kPodUid, c.pod_uid},
              {labels::kPodName, c.pod_name},
              {labels::kPodNamespace, c.pod_namespace}};
  return c;
}

}  // namespace k3c::kubelet
