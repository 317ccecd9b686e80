#include "roles/controllers/daemonset/daemon_placement.h"

#include "roles/scheduler/matching.h"
#include "roles/scheduler/model.h"

namespace k3c::controllers {

namespace {

const json& template_spec(const json& ds) {
  static const json kEmpty = json::object();
  auto spec = ds.find("spec");
  if (spec == ds.end() || !spec->is_object()) return kEmpty;
  auto t = spec->find("template");
  if (t == spec->end() || !t->is_object()) return kEmpty;
  auto s = t->find("spec");
  return s != t->end() && s->is_object() ? *s : kEmpty;
}

void add_toleration(json& tolerations, const char* key, const char* effect) {
  json wanted = {{"key", key}, {"operator", "Exists"}, {"effect", effect}};
  for (const json& t : tolerations) {
    // Upstream's match: the same key, operator, value and effect.
    if (t.is_object() && t.value("key", "") == key && t.value("operator", "Equal") == "Exists" &&
        t.value("value", "") == "" && t.value("effect", "") == effect)
      return;
  }
  tolerations.push_back(std::move(wanted));
}

}  // namespace

void add_daemon_tolerations(json& spec) {
  json& tolerations = spec["tolerations"];
  if (!tolerations.is_array()) tolerations = json::array();
  add_toleration(tolerations, "node.kubernetes.io/not-ready", "NoExecute");
  add_toleration(tolerations, "node.kubernetes.io/unreachable", "NoExecute");
  add_toleration(tolerations, "node.kubernetes.io/disk-pressure", "NoSchedule");
  add_toleration(tolerations, "node.kubernetes.io/memory-pressure", "NoSchedule");
  add_toleration(tolerations, "node.kubernetes.io/pid-pressure", "NoSchedule");
  add_toleration(tolerations, "node.kubernetes.io/unschedulable", "NoSchedule");
  if (spec.value("hostNetwork", false))
    add_toleration(tolerations, "node.kubernetes.io/network-unavailable", "NoSchedule");
}

void pin_to_node(json& spec, const std::string& node) {
  json term = {{"matchFields", json::array({{{"key", "metadata.name"},
                                             {"operator", "In"},
                                             {"values", json::array({node})}}})}};
  json& affinity = spec["affinity"];
  if (!affinity.is_object()) affinity = json::object();
  json& node_affinity = affinity["nodeAffinity"];
  if (!node_affinity.is_object()) node_affinity = json::object();
  node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {
      {"nodeSelectorTerms", json::array({term})}};
}

std::string target_node(const json& pod) {
  const json& spec = pod.value("spec", json::object());
  if (!spec.is_object()) return "";
  std::string node = spec.value("nodeName", "");
  if (!node.empty()) return node;
  json terms = spec.value("affinity", json::object())
                   .value("nodeAffinity", json::object())
                   .value("requiredDuringSchedulingIgnoredDuringExecution", json::object())
                   .value("nodeSelectorTerms", json::array());
  if (!terms.is_array()) return "";
  for (const json& term : terms) {
    if (!term.is_object()) continue;
    for (const json& r : term.value("matchFields", json::array())) {
      if (!r.is_object() || r.value("key", "") != "metadata.name" ||
          r.value("operator", "") != "In")
        continue;
      const json& values = r.value("values", json::array());
      if (values.is_array() && values.size() == 1 && values[0].is_string())
        return values[0].get<std::string>();
    }
  }
  return "";
}

Placement placement(const json& ds, const json& node) {
  json spec = template_spec(ds);
  std::string node_name = name_of(node);
  std::string fixed = spec.value("nodeName", "");
  if (!fixed.empty() && fixed != node_name) return {};
  add_daemon_tolerations(spec);
  spec["nodeName"] = node_name;
  json pod = {{"metadata", {{"name", "daemon"}, {"namespace", namespace_of(ds)}}},
              {"spec", std::move(spec)}};
  auto info = scheduler::pod_from_json(pod);
  auto model = scheduler::node_from_json(node);
  if (!info.is_ok() || !model.is_ok()) return {};
  if (!scheduler::pod_node_affinity_matches(**info, **model)) return {};
  bool untolerated = false, untolerated_no_execute = false;
  for (const auto& taint : (*model)->taints) {
    if (taint.effect != scheduler::TaintEffect::kNoSchedule &&
        taint.effect != scheduler::TaintEffect::kNoExecute)
      continue;
    if (scheduler::tolerates_all((*info)->tolerations, taint)) continue;
    untolerated = true;
    if (taint.effect == scheduler::TaintEffect::kNoExecute) untolerated_no_execute = true;
  }
  if (!untolerated) return {true, true};
  return {false, !untolerated_no_execute};
}

json new_daemon_pod(const json& ds, const std::string& node, const std::string& hash) {
  json pod = pod_from_template(ds.value("spec", json::object()).value("template", json()), ds,
                               "apps/v1", "DaemonSet");
  json& meta = pod["metadata"];
  meta["generateName"] = name_of(ds) + "-";
  json& labels = meta["labels"];
  if (!labels.is_object()) labels = json::object();
  labels[kDaemonRevisionLabel] = hash;
  // The generation the apiserver records for the template, when it does (upstream's
  // deprecated pod-template-generation label).
  std::string generation = ds.value("metadata", json::object())
                               .value("annotations", json::object())
                               .value("deprecated.daemonset.template.generation", "");
  if (!generation.empty()) labels["pod-template-generation"] = generation;
  add_daemon_tolerations(pod["spec"]);
  pin_to_node(pod["spec"], node);
  return pod;
}

}  // namespace k3c::controllers
