// v1.Pod JSON -> PodInfo: the parts scheduling reads, with the effective resource request
// computed once.
#include <nlohmann/json.hpp>

#include "api/pod_resources.h"
#include "roles/scheduler/model.h"
#include "roles/scheduler/parse_common.h"

namespace k3c::scheduler {

using json = nlohmann::json;

namespace {

constexpr int64_t kDefaultMilliCpuRequest = 100;              // upstream DefaultMilliCPURequest
constexpr int64_t kDefaultMemoryRequest = 200 * 1024 * 1024;  // upstream DefaultMemoryRequest

PodAffinityTerm affinity_term_from_json(const json& term, const std::string& pod_namespace,
                                        const Labels& pod_labels) {
  PodAffinityTerm out;
  out.selector = label_selector_from_json(api::member(term, "labelSelector"));
  // matchLabelKeys / mismatchLabelKeys: the incoming pod's values join the selector.
  if (out.selector) {
    auto reqs = out.selector->requirements();
    for (const std::string& key : string_list(api::member(term, "matchLabelKeys"))) {
      if (auto it = pod_labels.find(key); it != pod_labels.end())
        reqs.push_back({key, LabelSelector::Op::kIn, {it->second}});
    }
    for (const std::string& key : string_list(api::member(term, "mismatchLabelKeys"))) {
      if (auto it = pod_labels.find(key); it != pod_labels.end())
        reqs.push_back({key, LabelSelector::Op::kNotIn, {it->second}});
    }
    out.selector = LabelSelector::from_requirements(std::move(reqs));
  }
  out.namespaces = string_list(api::member(term, "namespaces"));
  const json& ns_selector = api::member(term, "namespaceSelector");
  if (ns_selector.is_object()) out.namespace_selector = label_selector_from_json(ns_selector);
  if (out.namespaces.empty() && !out.namespace_selector) out.namespaces.push_back(pod_namespace);
  out.topology_key = api::text(term, "topologyKey");
  return out;
}

std::vector<PodAffinityTerm> terms_from_json(const json& list, const std::string& ns,
                                             const Labels& labels) {
  std::vector<PodAffinityTerm> out;
  if (!list.is_array()) return out;
  for (const json& t : list) out.push_back(affinity_term_from_json(t, ns, labels));
  return out;
}

std::vector<WeightedPodAffinityTerm> weighted_terms_from_json(const json& list,
                                                              const std::string& ns,
                                                              const Labels& labels) {
  std::vector<WeightedPodAffinityTerm> out;
  if (!list.is_array()) return out;
  for (const json& t : list) {
    const json& w = api::member(t, "weight");
    out.push_back({w.is_number_integer() ? w.get<int32_t>() : 0,
                   affinity_term_from_json(api::member(t, "podAffinityTerm"), ns, labels)});
  }
  return out;
}

void parse_affinity(const json& affinity, PodInfo& pod) {
  const json& node = api::member(affinity, "nodeAffinity");
  const json& required = api::member(node, "requiredDuringSchedulingIgnoredDuringExecution");
  if (required.is_object()) pod.required_node_affinity = node_selector_from_json(required);
  const json& preferred = api::member(node, "preferredDuringSchedulingIgnoredDuringExecution");
  if (preferred.is_array()) {
    for (const json& p : preferred) {
      const json& w = api::member(p, "weight");
      pod.preferred_node_affinity.push_back(
          {w.is_number_integer() ? w.get<int32_t>() : 0,
           node_selector_term_from_json(api::member(p, "preference"))});
    }
  }
  const char* kRequired = "requiredDuringSchedulingIgnoredDuringExecution";
  const char* kPreferred = "preferredDuringSchedulingIgnoredDuringExecution";
  const json& pa = api::member(affinity, "podAffinity");
  const json& anti = api::member(affinity, "podAntiAffinity");
  pod.required_affinity = terms_from_json(api::member(pa, kRequired), pod.namespace_, pod.labels);
  pod.preferred_affinity =
      weighted_terms_from_json(api::member(pa, kPreferred), pod.namespace_, pod.labels);
  pod.required_anti_affinity =
      terms_from_json(api::member(anti, kRequired), pod.namespace_, pod.labels);
  pod.preferred_anti_affinity =
      weighted_terms_from_json(api::member(anti, kPreferred), pod.namespace_, pod.labels);
}

std::vector<TopologySpreadConstraint> spread_from_json(const json& list, const Labels& labels) {
  std::vector<TopologySpreadConstraint> out;
  if (!list.is_array()) return out;
  for (const json& c : list) {
    TopologySpreadConstraint t;
    const json& skew = api::member(c, "maxSkew");
    if (skew.is_number_integer()) t.max_skew = skew.get<int32_t>();
    t.topology_key = api::text(c, "topologyKey");
    t.do_not_schedule = api::text(c, "whenUnsatisfiable") != "ScheduleAnyway";
    t.selector = label_selector_from_json(api::member(c, "labelSelector"));
    if (t.selector) {
      auto reqs = t.selector->requirements();
      for (const std::string& key : string_list(api::member(c, "matchLabelKeys"))) {
        if (auto it = labels.find(key); it != labels.end())
          reqs.push_back({key, LabelSelector::Op::kIn, {it->second}});
      }
      t.selector = LabelSelector::from_requirements(std::move(reqs));
    }
    const json& min_domains = api::member(c, "minDomains");
    if (min_domains.is_number_integer()) t.min_domains = min_domains.get<int32_t>();
    t.honor_node_affinity = api::text(c, "nodeAffinityPolicy") != "Ignore";
    t.honor_node_taints = api::text(c, "nodeTaintsPolicy") == "Honor";
    out.push_back(std::move(t));
  }
  return out;
}

// Upstream's effective request (api/pod_resources.h), plus the pod's overhead. `non_zero`:
// a container without a cpu or memory request counts upstream's defaults (for scoring).
Resources effective_request(const json& spec, bool non_zero) {
  auto container_request = [&](const json& c) {
    const json& requests = api::member(api::member(c, "resources"), "requests");
    Resources r = resources_from_list(requests);
    if (non_zero) {
      if (!requests.is_object() || !requests.contains("cpu")) r.milli_cpu = kDefaultMilliCpuRequest;
      if (!requests.is_object() || !requests.contains("memory")) r.memory = kDefaultMemoryRequest;
    }
    return r;
  };
  Resources total = api::pod_containers_total<Resources>(
      spec, container_request, [](Resources& a, const Resources& b) { a.add(b); },
      [](Resources& a, const Resources& b) { a.set_max(b); });
  total.add(resources_from_list(api::member(spec, "overhead")));
  return total;
}

void parse_containers(const json& spec, PodInfo& pod) {
  for (const char* list : {"initContainers", "containers"}) {
    const json& containers = api::member(spec, list);
    if (!containers.is_array()) continue;
    bool app = std::string_view(list) == "containers";
    for (const json& c : containers) {
      ++pod.container_count;
      const std::string& image = api::text(c, "image");
      if (!image.empty()) pod.images.push_back(normalized_image_name(image));
      if (!app) continue;
      const json& ports = api::member(c, "ports");
      if (!ports.is_array()) continue;
      for (const json& p : ports) {
        const json& host_port = api::member(p, "hostPort");
        if (!host_port.is_number_integer() || host_port.get<int32_t>() <= 0) continue;
        HostPort hp{api::text(p, "hostIP"), api::text(p, "protocol"), host_port.get<int32_t>()};
        if (hp.ip.empty()) hp.ip = "0.0.0.0";
        if (hp.protocol.empty()) hp.protocol = "TCP";
        pod.host_ports.push_back(std::move(hp));
      }
    }
  }
}

}  // namespace

std::vector<Toleration> tolerations_from_json(const json& list) {
  std::vector<Toleration> out;
  if (!list.is_array()) return out;
  for (const json& t : list) {
    Toleration toleration{api::text(t, "key"), api::text(t, "operator") == "Exists",
                          api::text(t, "value"), taint_effect_from(api::text(t, "effect")),
                          std::nullopt};
    if (const json& seconds = api::member(t, "tolerationSeconds"); seconds.is_number_integer()) {
      toleration.toleration_seconds = seconds.get<int64_t>();
    }
    out.push_back(std::move(toleration));
  }
  return out;
}

Result<PodPtr> pod_from_json(const json& object) {
  if (!object.is_object()) return error(Code::kInvalid, "pod: not an object");
  const json& meta = api::member(object, "metadata");
  const json& spec = api::member(object, "spec");
  auto pod = std::make_shared<PodInfo>();
  pod->namespace_ = api::text(meta, "namespace");
  pod->name = api::text(meta, "name");
  if (pod->name.empty()) return error(Code::kInvalid, "pod: metadata.name is required");
  if (pod->namespace_.empty()) pod->namespace_ = "default";
  pod->uid = api::text(meta, "uid");
  if (pod->uid.empty()) pod->uid = pod->key();  // tests and dry runs: the key is unique too
  pod->labels = labels_from_json(api::member(meta, "labels"));
  pod->terminating = api::member(meta, "deletionTimestamp").is_string();
  const json& priority = api::member(spec, "priority");
  if (priority.is_number_integer()) pod->priority = priority.get<int32_t>();
  pod->preempt_never = api::text(spec, "preemptionPolicy") == "Never";
  pod->scheduler_name = api::text(spec, "schedulerName");
  if (pod->scheduler_name.empty()) pod->scheduler_name = "default-scheduler";
  pod->node_name = api::text(spec, "nodeName");
  const json& status = api::member(object, "status");
  pod->nominated_node_name = api::text(status, "nominatedNodeName");
  pod->start_time = api::text(status, "startTime");
  pod->node_selector = labels_from_json(api::member(spec, "nodeSelector"));
  parse_affinity(api::member(spec, "affinity"), *pod);
  pod->tolerations = tolerations_from_json(api::member(spec, "tolerations"));
  pod->spread_constraints =
      spread_from_json(api::member(spec, "topologySpreadConstraints"), pod->labels);
  parse_containers(spec, *pod);
  const json& volumes = api::member(spec, "volumes");
  if (volumes.is_array()) {
    for (const json& v : volumes) {
      const std::string& claim = api::text(api::member(v, "persistentVolumeClaim"), "claimName");
      if (!claim.empty()) pod->pvc_names.push_back(claim);
    }
  }
  pod->request = effective_request(spec, false);
  pod->non_zero_request = effective_request(spec, true);
  return PodPtr(std::move(pod));
}

}  // namespace k3c::scheduler
