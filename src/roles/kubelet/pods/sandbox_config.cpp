// A pod's sandbox config (see sandbox_config.h).
#include "roles/kubelet/pods/sandbox_config.h"

#include "api/pod_qos.h"
#include "roles/kubelet/pods/labels.h"
#include "runtime/cgroups/resource_math.h"

namespace k3c::kubelet {

using nlohmann::json;

runtime::SandboxConfig sandbox_config(const json& pod, uint32_t attempt, const DnsSettings& dns,
                                      const std::string& log_root,
                                      const PodCgroupSettings& cgroups) {
  const json meta = pod.value("metadata", json::object());
  const json spec = pod.value("spec", json::object());
  runtime::SandboxConfig c;
  c.pod_uid = meta.value("uid", "");
  c.pod_name = meta.value("name", "");
  c.pod_namespace = meta.value("namespace", "");
  c.attempt = attempt;
  c.hostname = pod_hostname(pod);
  c.host_network = spec.value("hostNetwork", false);
  c.host_pid = spec.value("hostPID", false);
  c.host_ipc = spec.value("hostIPC", false);
  c.share_process_namespace = spec.value("shareProcessNamespace", false);
  c.resolv_conf = pod_resolv_conf(pod, dns.cluster, dns.host_resolv).render();
  // The pod's own IP line needs the IP the sandbox gets, which is not known before it exists.
  c.hosts = c.host_network ? host_network_hosts_file(pod, dns.host_hosts)
                           : pod_hosts_file(pod, {}, dns.cluster.domain);
  const api::PodCgroup cgroup = api::pod_cgroup(pod);
  c.cgroup_parent = cgroup_under(cgroups.root, cgroup.path());
  c.pod_resources = runtime::pod_linux_resources(cgroup.cpu_request_milli, cgroup.cpu_limit_milli,
                                                 cgroup.memory_limit_bytes);
  if (cgroups.pids_limit > 0) c.pod_resources.pids_limit = cgroups.pids_limit;
  c.log_directory = log_root + "/" + c.pod_namespace + "_" + c.pod_name + "_" + c.pod_uid;
  c.labels = {{labels::kPodUid, c.pod_uid},
              {labels::kPodName, c.pod_name},
              {labels::kPodNamespace, c.pod_namespace}};
  return c;
}

std::string cgroup_under(const std::string& cgroup_root, const std::string& relative) {
  std::string root = cgroup_root;
  while (!root.empty() && root.front() == '/') root.erase(0, 1);
  while (!root.empty() && root.back() == '/') root.pop_back();
  return root.empty() ? relative : root + "/" + relative;
}

}  // namespace k3c::kubelet
