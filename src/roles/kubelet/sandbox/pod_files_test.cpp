#include "roles/kubelet/sandbox/pod_files.h"

#include <catch2/catch.hpp>

namespace k3c::kubelet {
namespace {

using nlohmann::json;

const ResolvConf kHost = parse_resolv_conf(
    "# host\nnameserver 192.0.2.53\nnameserver 192.0.2.54 ; second\n"
    "domain old.example\nsearch corp.example lab.example\noptions edns0 ndots:2\n");
const ClusterDns kCluster{{"10.43.0.10"}, "cluster.local"};

json files_pod(json spec) {
  return {{"metadata", {{"name", "web"}, {"namespace", "shop"}}}, {"spec", std::move(spec)}};
}

TEST_CASE("resolv.conf parses as the resolver reads it") {
  CHECK(kHost.nameservers == std::vector<std::string>{"192.0.2.53", "192.0.2.54"});
  CHECK(kHost.searches == std::vector<std::string>{"corp.example", "lab.example"});
  CHECK(kHost.options == std::vector<std::string>{"edns0", "ndots:2"});
}

TEST_CASE("ClusterFirst gives the cluster DNS, the search path and ndots:5") {
  ResolvConf conf = pod_resolv_conf(files_pod(json::object()), kCluster, kHost);
  CHECK(conf.render() ==
        "nameserver 10.43.0.10\n"
        "search shop.svc.cluster.local svc.cluster.local cluster.local corp.example lab.example\n"
        "options ndots:5\n");
}

TEST_CASE("dnsPolicy Default, hostNetwork, None and dnsConfig") {
  CHECK(pod_resolv_conf(files_pod({{"dnsPolicy", "Default"}}), kCluster, kHost).nameservers ==
        kHost.nameservers);
  CHECK(pod_resolv_conf(files_pod({{"hostNetwork", true}}), kCluster, kHost).nameservers ==
        kHost.nameservers);
  CHECK(
      pod_resolv_conf(files_pod({{"hostNetwork", true}, {"dnsPolicy", "ClusterFirstWithHostNet"}}),
                      kCluster, kHost)
          .nameservers == std::vector<std::string>{"10.43.0.10"});
  json config = {{"nameservers", {"1.1.1.1", "10.43.0.10"}},
                 {"searches", {"extra.example"}},
                 {"options", {{{"name", "ndots"}, {"value", "2"}}, {{"name", "edns0"}}}}};
  ResolvConf merged = pod_resolv_conf(files_pod({{"dnsConfig", config}}), kCluster, kHost);
  CHECK(merged.nameservers == std::vector<std::string>{"10.43.0.10", "1.1.1.1"});
  CHECK(merged.searches.back() == "extra.example");
  CHECK(merged.options == std::vector<std::string>{"ndots:2", "edns0"});
  ResolvConf none =
      pod_resolv_conf(files_pod({{"dnsPolicy", "None"}, {"dnsConfig", config}}), kCluster, kHost);
  CHECK(none.nameservers == std::vector<std::string>{"1.1.1.1", "10.43.0.10"});
  std::string warning;
  ResolvConf fallback = pod_resolv_conf(files_pod(json::object()), ClusterDns{}, kHost, &warning);
  CHECK(fallback.nameservers == kHost.nameservers);
  CHECK(warning.find("Falling back to \"Default\" policy.") != std::string::npos);
}

TEST_CASE("the managed hosts file names the pod and its aliases") {
  json spec = {{"hostname", "db-0"},
               {"subdomain", "db"},
               {"hostAliases", {{{"ip", "192.0.2.9"}, {"hostnames", {"a.example", "b"}}}}}};
  std::string hosts = pod_hosts_file(files_pod(spec), {"10.42.0.7"}, "cluster.local");
  CHECK(hosts.rfind("# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n", 0) == 0);
  CHECK(hosts.find("10.42.0.7\tdb-0.db.shop.svc.cluster.local\tdb-0\n") != std::string::npos);
  CHECK(hosts.find("\n# Entries added by HostAliases.\n192.0.2.9\ta.example\tb\n") !=
        std::string::npos);
  CHECK(pod_hosts_file(files_pod(json::object()), {"10.42.0.8"}, "cluster.local")
            .find("10.42.0.8\tweb\n") != std::string::npos);
  CHECK(host_network_hosts_file(files_pod(json::object()), "127.0.0.1 localhost\n") ==
        "127.0.0.1 localhost\n");
  CHECK(pod_hostname(files_pod({{"hostname", std::string(62, 'a') + "-b"}})) ==
        std::string(62, 'a'));
}

}  // namespace
}  // namespace k3c::kubelet
