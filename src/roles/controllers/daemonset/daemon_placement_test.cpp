#include "roles/controllers/daemonset/daemon_placement.h"

#include <catch2/catch.hpp>

namespace k3c::controllers {
namespace {

json daemon_set(json pod_spec = json::object()) {
  pod_spec["containers"] = json::array({{{"name", "c"}, {"image", "busybox"}}});
  return {{"metadata", {{"name", "agent"}, {"namespace", "kube-system"}, {"uid", "ds-uid"}}},
          {"spec",
           {{"selector", {{"matchLabels", {{"app", "agent"}}}}},
            {"template", {{"metadata", {{"labels", {{"app", "agent"}}}}}, {"spec", pod_spec}}}}}};
}

json node(const std::string& name, json taints = json::array(), json labels = json::object()) {
  return {{"metadata", {{"name", name}, {"labels", labels}}}, {"spec", {{"taints", taints}}}};
}

json taint(const std::string& key, const std::string& effect) {
  return {{"key", key}, {"effect", effect}};
}

TEST_CASE("daemon pods tolerate what upstream adds") {
  json spec = {{"tolerations", json::array({{{"key", "node.kubernetes.io/not-ready"},
                                             {"operator", "Exists"},
                                             {"effect", "NoExecute"}}})}};
  add_daemon_tolerations(spec);
  std::vector<std::string> keys;
  for (const auto& t : spec["tolerations"])
    keys.push_back(t["key"].get<std::string>() + ":" + t["effect"].get<std::string>());
  CHECK(keys == std::vector<std::string>{"node.kubernetes.io/not-ready:NoExecute",
                                         "node.kubernetes.io/unreachable:NoExecute",
                                         "node.kubernetes.io/disk-pressure:NoSchedule",
                                         "node.kubernetes.io/memory-pressure:NoSchedule",
                                         "node.kubernetes.io/pid-pressure:NoSchedule",
                                         "node.kubernetes.io/unschedulable:NoSchedule"});
  json host = {{"hostNetwork", true}};
  add_daemon_tolerations(host);
  CHECK(host["tolerations"].back()["key"] == "node.kubernetes.io/network-unavailable");
}

TEST_CASE("daemon pods are pinned to their node") {
  json spec = {{"affinity",
                {{"nodeAffinity",
                  {{"requiredDuringSchedulingIgnoredDuringExecution",
                    {{"nodeSelectorTerms",
                      json::array({{{"matchExpressions",
                                     json::array({{{"key", "zone"},
                                                   {"operator", "In"},
                                                   {"values", json::array({"a"})}}})}}})}}}}},
                 {"podAntiAffinity", json::object()}}}};
  pin_to_node(spec, "n2");
  json terms = spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
                   ["nodeSelectorTerms"];
  CHECK(terms ==
        json::array({{{"matchFields", json::array({{{"key", "metadata.name"},
                                                    {"operator", "In"},
                                                    {"values", json::array({"n2"})}}})}}}));
  CHECK(spec["affinity"].contains("podAntiAffinity"));
  CHECK(target_node({{"spec", spec}}) == "n2");
  CHECK(target_node({{"spec", {{"nodeName", "n3"}}}}) == "n3");
  CHECK(target_node({{"spec", json::object()}}) == "");

  json pod = new_daemon_pod(daemon_set(), "n1", "h4sh");
  CHECK(pod["metadata"]["generateName"] == "agent-");
  CHECK(pod["metadata"]["labels"]["controller-revision-hash"] == "h4sh");
  CHECK(pod["metadata"]["ownerReferences"][0]["kind"] == "DaemonSet");
  CHECK(target_node(pod) == "n1");
  CHECK(pod["spec"]["tolerations"].size() == 6);
}

TEST_CASE("which nodes run the daemon pod") {
  struct Case {
    const char* what;
    json ds;
    json node;
    bool run, keep;
  };
  json selecting = daemon_set({{"nodeSelector", {{"disk", "ssd"}}}});
  json tolerant = daemon_set({{"tolerations", json::array({{{"key", "dedicated"},
                                                            {"operator", "Equal"},
                                                            {"value", "db"},
                                                            {"effect", "NoSchedule"}}})}});
  std::vector<Case> cases = {
      {"plain node", daemon_set(), node("n"), true, true},
      {"not ready: tolerated", daemon_set(),
       node("n", json::array({taint("node.kubernetes.io/not-ready", "NoExecute")})), true, true},
      {"cordoned: tolerated", daemon_set(),
       node("n", json::array({taint("node.kubernetes.io/unschedulable", "NoSchedule")})), true,
       true},
      {"NoSchedule not tolerated: existing pods stay", daemon_set(),
       node("n", json::array({taint("dedicated", "NoSchedule")})), false, true},
      {"NoExecute not tolerated: pods go", daemon_set(),
       node("n", json::array({taint("dedicated", "NoExecute")})), false, false},
      {"PreferNoSchedule is no obstacle", daemon_set(),
       node("n", json::array({taint("dedicated", "PreferNoSchedule")})), true, true},
      {"tolerated by the template", tolerant,
       node("n", json::array({{{"key", "dedicated"}, {"value", "db"}, {"effect", "NoSchedule"}}})),
       true, true},
      {"selector matches", selecting, node("n", json::array(), {{"disk", "ssd"}}), true, true},
      {"selector does not match", selecting, node("n"), false, false},
      {"template names another node", daemon_set({{"nodeName", "other"}}), node("n"), false, false},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    Placement p = placement(c.ds, c.node);
    CHECK(p.should_run == c.run);
    CHECK(p.should_continue_running == c.keep);
  }
}

}  // namespace
}  // namespace k3c::controllers
