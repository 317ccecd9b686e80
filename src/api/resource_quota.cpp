// ResourceQuota evaluators and checks (see resource_quota.h).
#include "api/resource_quota.h"

#include <algorithm>
#include <map>

#include "api/json_fields.h"

namespace k3c::api {

namespace {

using api::Quantity;
using nlohmann::json;

const char* const kClassSuffix = ".storageclass.storage.k8s.io/";

bool is_pods(const GroupResource& r) { return r.first.empty() && r.second == "pods"; }
bool is_services(const GroupResource& r) { return r.first.empty() && r.second == "services"; }
bool is_claims(const GroupResource& r) {
  return r.first.empty() && r.second == "persistentvolumeclaims";
}

// Extended resources: domain-qualified names outside kubernetes.io.
bool extended(std::string_view name) {
  return name.find('/') != std::string_view::npos &&
         !std::string_view(name).starts_with("kubernetes.io/") &&
         !std::string_view(name).starts_with("requests.");
}

std::string count_name(const GroupResource& r) {
  return "count/" + r.second + (r.first.empty() ? "" : "." + r.first);
}

bool legacy_count(const GroupResource& r) {
  return r.first.empty() && (r.second == "configmaps" || r.second == "secrets" ||
                             r.second == "replicationcontrollers" || r.second == "resourcequotas");
}

bool pod_tracks(std::string_view n) {
  static const std::set<std::string, std::less<>> kNames = {"pods",
                                                            "count/pods",
                                                            "cpu",
                                                            "memory",
                                                            "ephemeral-storage",
                                                            "requests.cpu",
                                                            "requests.memory",
                                                            "requests.ephemeral-storage",
                                                            "limits.cpu",
                                                            "limits.memory",
                                                            "limits.ephemeral-storage"};
  if (kNames.count(n)) return true;
  if (std::string_view(n).starts_with("hugepages-") ||
      std::string_view(n).starts_with("requests.hugepages-"))
    return true;
  return std::string_view(n).starts_with("requests.") && extended(n.substr(9));
}

bool tracks(const GroupResource& r, std::string_view n) {
  if (is_pods(r)) return pod_tracks(n);
  if (is_services(r))
    return n == "services" || n == "count/services" || n == "services.nodeports" ||
           n == "services.loadbalancers";
  if (is_claims(r))
    return n == "persistentvolumeclaims" || n == "count/persistentvolumeclaims" ||
           n == "requests.storage" || n.find(kClassSuffix) != std::string_view::npos;
  return n == count_name(r) || (legacy_count(r) && n == r.second);
}

// A pod that has finished or is being deleted no longer holds compute resources.
bool pod_counts(const json& pod) {
  std::string phase = text(member(pod, "status"), "phase");
  if (phase == "Succeeded" || phase == "Failed") return false;
  return member(member(pod, "metadata"), "deletionTimestamp").is_null();
}

// Names a container's (or pod's) requests and limits count under.
ResourceList compute_usage(const ResourceList& requests, const ResourceList& limits) {
  ResourceList out{{"pods", Quantity::from_value(1)}};
  for (const char* r : {"cpu", "memory", "ephemeral-storage"}) {
    if (auto it = requests.find(r); it != requests.end()) {
      out[r] = it->second;
      out[std::string("requests.") + r] = it->second;
    }
    if (auto it = limits.find(r); it != limits.end()) out[std::string("limits.") + r] = it->second;
  }
  for (const auto& [name, q] : requests) {
    if (std::string_view(name).starts_with("hugepages-")) {
      out[name] = q;
      out["requests." + name] = q;
    } else if (extended(name)) {
      out["requests." + name] = q;
    }
  }
  return out;
}

ResourceList pod_usage(const json& pod) {
  ResourceList out{{"count/pods", Quantity::from_value(1)}};
  if (!pod_counts(pod)) return out;
  const json& spec = member(pod, "spec");
  add_into(out, compute_usage(pod_resources(spec, "requests"), pod_resources(spec, "limits")));
  return out;
}

ResourceList service_usage(const json& svc) {
  ResourceList out{{"services", Quantity::from_value(1)},
                   {"count/services", Quantity::from_value(1)}};
  const json& spec = member(svc, "spec");
  std::string type = text(spec, "type");
  const json& ports = member(spec, "ports");
  int64_t count = ports.is_array() ? static_cast<int64_t>(ports.size()) : 0;
  if (type == "NodePort") out["services.nodeports"] = Quantity::from_value(count);
  if (type == "LoadBalancer") {
    // Without node-port allocation only ports that ask for one explicitly count.
    if (member(spec, "allocateLoadBalancerNodePorts") == false) {
      count = 0;
      for (const json& p : ports) count += member(p, "nodePort").is_number_integer() ? 1 : 0;
    }
    out["services.nodeports"] = Quantity::from_value(count);
    out["services.loadbalancers"] = Quantity::from_value(1);
  }
  return out;
}

std::string claim_class(const json& claim) {
  const json& annotation = member(member(member(claim, "metadata"), "annotations"),
                                  "volume.beta.kubernetes.io/storage-class");
  if (annotation.is_string()) return annotation.get<std::string>();
  return text(member(claim, "spec"), "storageClassName");
}

ResourceList claim_usage(const json& claim) {
  ResourceList out{{"persistentvolumeclaims", Quantity::from_value(1)},
                   {"count/persistentvolumeclaims", Quantity::from_value(1)}};
  std::string cls = claim_class(claim);
  if (!cls.empty()) out[cls + kClassSuffix + "persistentvolumeclaims"] = Quantity::from_value(1);
  ResourceList requests =
      resource_list(member(member(member(claim, "spec"), "resources"), "requests"));
  if (auto it = requests.find("storage"); it != requests.end()) {
    Quantity storage = it->second;
    // Storage is charged in whole bytes, rounded up.
    if (storage.milli_value() % 1000 != 0)
      storage = Quantity::from_value(storage.value(), storage.format());
    out["requests.storage"] = storage;
    if (!cls.empty()) out[cls + kClassSuffix + "requests.storage"] = storage;
  }
  return out;
}

bool best_effort(const json& spec) {
  for (const char* list : {"containers", "initContainers"}) {
    const json& containers = member(spec, list);
    if (!containers.is_array()) continue;
    for (const json& c : containers) {
      for (const char* which : {"requests", "limits"}) {
        ResourceList r = resource_list(member(member(c, "resources"), which));
        for (const char* name : {"cpu", "memory"}) {
          auto it = r.find(name);
          if (it != r.end() && !it->second.is_zero() && !it->second.negative()) return false;
        }
      }
    }
  }
  return true;
}

// One scope requirement against a pod (upstream's podMatchesScopeFunc).
bool pod_in_scope(const json& requirement, const json& pod) {
  std::string scope = text(requirement, "scopeName");
  std::string op = text(requirement, "operator");
  const json& spec = member(pod, "spec");
  if (scope == "Terminating") {
    const json& deadline = member(spec, "activeDeadlineSeconds");
    return deadline.is_number() && deadline.get<double>() >= 0;
  }
  if (scope == "NotTerminating") return member(spec, "activeDeadlineSeconds").is_null();
  if (scope == "BestEffort") return best_effort(spec);
  if (scope == "NotBestEffort") return !best_effort(spec);
  if (scope == "PriorityClass") {
    std::string name = text(spec, "priorityClassName");
    if (op == "Exists") return !name.empty();
    std::vector<std::string> values;
    const json& v = member(requirement, "values");
    if (v.is_array()) {
      for (const json& s : v) {
        if (s.is_string()) values.push_back(s.get<std::string>());
      }
    }
    bool listed = std::find(values.begin(), values.end(), name) != values.end();
    if (op == "In") return listed;
    if (op == "NotIn") return !listed;
    // As a label selector on {PriorityClass: name}: the key is always there.
    return false;
  }
  return false;  // CrossNamespacePodAffinity and unknown scopes select nothing here
}

bool scopes_match(const json& quota, const GroupResource& resource, const json& object) {
  std::vector<json> requirements;
  const json& spec = member(quota, "spec");
  const json& scopes = member(spec, "scopes");
  if (scopes.is_array()) {
    for (const json& s : scopes) requirements.push_back({{"scopeName", s}, {"operator", "Exists"}});
  }
  const json& expressions = member(member(spec, "scopeSelector"), "matchExpressions");
  if (expressions.is_array()) {
    for (const json& e : expressions) requirements.push_back(e);
  }
  if (requirements.empty()) return true;
  if (!is_pods(resource)) return false;  // only pods have scopes
  for (const json& r : requirements) {
    if (!pod_in_scope(r, object)) return false;
  }
  return true;
}

ResourceList hard_of(const json& quota) {
  return resource_list(member(member(quota, "status"), "hard"));
}

ResourceList mask(const ResourceList& list, const std::set<std::string>& names) {
  ResourceList out;
  for (const auto& [n, q] : list) {
    if (names.count(n)) out.emplace(n, q);
  }
  return out;
}

// Pods that do not ask for cpu or memory where a quota limits them (upstream keeps this
// for compatibility): "must specify limits.cpu for: web; requests.memory for: web".
std::string pod_constraints(const std::set<std::string>& restricted, const json& pod) {
  static const std::set<std::string> kValidated = {
      "requests.cpu", "requests.memory", "limits.cpu", "limits.memory", "cpu", "memory"};
  std::set<std::string> required;
  for (const auto& n : restricted) {
    if (kValidated.count(n)) required.insert(n);
  }
  if (required.empty()) return "";
  std::map<std::string, std::set<std::string>> missing;
  const json& spec = member(pod, "spec");
  for (const char* list : {"containers", "initContainers"}) {
    const json& containers = member(spec, list);
    if (!containers.is_array()) continue;
    for (const json& c : containers) {
      const json& res = member(c, "resources");
      ResourceList usage = compute_usage(resource_list(member(res, "requests")),
                                         resource_list(member(res, "limits")));
      for (const auto& n : required) {
        if (!usage.count(n)) missing[n].insert(text(c, "name"));
      }
    }
  }
  if (missing.empty()) return "";
  std::string out = "must specify ";
  bool first = true;
  for (const auto& [resource, names] : missing) {
    out += (first ? "" : "; ") + resource + " for: ";
    first = false;
    bool first_name = true;
    for (const auto& n : names) {
      out += (first_name ? "" : ",") + n;
      first_name = false;
    }
  }
  return out;
}

std::string names_of(const std::set<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ",") + n;
  return out;
}

}  // namespace

ResourceList quota_usage(const GroupResource& resource, const json& object) {
  if (is_pods(resource)) return pod_usage(object);
  if (is_services(resource)) return service_usage(object);
  if (is_claims(resource)) return claim_usage(object);
  ResourceList out{{count_name(resource), Quantity::from_value(1)}};
  if (legacy_count(resource)) out[resource.second] = Quantity::from_value(1);
  return out;
}

bool quota_charges(const GroupResource& resource, bool create) {
  return create || is_services(resource) || is_claims(resource);
}

ResourceList quota_delta(const GroupResource& resource, const json& object, const json* old) {
  ResourceList delta = quota_usage(resource, object);
  if (old) {
    ResourceList before = quota_usage(resource, *old);
    for (auto& [n, q] : delta) {
      auto it = before.find(n);
      if (it == before.end()) continue;
      q = it->second > q ? Quantity() : q - it->second;
    }
  }
  std::erase_if(delta, [](const auto& e) { return e.second.is_zero(); });
  return delta;
}

bool quota_applies(const json& quota, const GroupResource& resource, const json& object) {
  bool limits_something = false;
  for (const auto& [n, q] : hard_of(quota)) limits_something |= tracks(resource, n);
  return limits_something && scopes_match(quota, resource, object);
}

QuotaCheck check_quota(const json& quota, const GroupResource& resource, const json& object,
                       const ResourceList& delta) {
  QuotaCheck out;
  std::string name = text(member(quota, "metadata"), "name");
  ResourceList hard = hard_of(quota);
  ResourceList used = resource_list(member(member(quota, "status"), "used"));
  std::set<std::string> restricted;
  for (const auto& [n, q] : hard) {
    if (tracks(resource, n)) restricted.insert(n);
  }
  if (is_pods(resource)) {
    if (auto why = pod_constraints(restricted, object); !why.empty()) {
      out.error = "failed quota: " + name + ": " + why;
      return out;
    }
  }
  for (const auto& n : restricted) {
    if (!used.count(n)) {
      out.error = "status unknown for quota: " + name + ", resources: " + names_of(restricted);
      return out;
    }
  }
  std::set<std::string> hard_names;
  for (const auto& [n, q] : hard) hard_names.insert(n);
  ResourceList requested = mask(delta, hard_names);
  if (requested.empty()) return out;
  ResourceList next = used;
  add_into(next, requested);
  std::set<std::string> exceeded;
  for (const auto& [n, q] : requested) {
    if (next.at(n) > hard.at(n)) exceeded.insert(n);
  }
  if (!exceeded.empty()) {
    out.error = "exceeded quota: " + name + ", requested: " + pretty(mask(requested, exceeded)) +
                ", used: " + pretty(mask(used, exceeded)) +
                ", limited: " + pretty(mask(hard, exceeded));
    return out;
  }
  out.charged = true;
  out.used = std::move(next);
  return out;
}

std::set<GroupResource> quota_sources(const json& quota) {
  std::set<GroupResource> out;
  for (const auto& [n, q] : resource_list(member(member(quota, "spec"), "hard"))) {
    if (std::string_view(n).starts_with("count/")) {
      std::string rest = n.substr(6);
      auto dot = rest.find('.');
      if (dot == std::string::npos) {
        out.insert({"", rest});
      } else {
        out.insert({rest.substr(dot + 1), rest.substr(0, dot)});
      }
    } else if (tracks({"", "persistentvolumeclaims"}, n)) {
      out.insert({"", "persistentvolumeclaims"});
    } else if (tracks({"", "services"}, n)) {
      out.insert({"", "services"});
    } else if (pod_tracks(n)) {
      out.insert({"", "pods"});
    } else if (n == "configmaps" || n == "secrets" || n == "replicationcontrollers" ||
               n == "resourcequotas") {
      out.insert({"", n});
    }
  }
  return out;
}

ResourceList quota_used(const json& quota,
                        const std::function<std::vector<json>(const GroupResource&)>& objects) {
  ResourceList hard = resource_list(member(member(quota, "spec"), "hard"));
  ResourceList total;
  for (const GroupResource& source : quota_sources(quota)) {
    for (const json& o : objects(source)) {
      if (scopes_match(quota, source, o)) add_into(total, quota_usage(source, o));
    }
  }
  ResourceList out;
  for (const auto& [n, q] : hard) {
    auto it = total.find(n);
    out[n] = it == total.end() ? Quantity() : it->second;
  }
  return out;
}

}  // namespace k3c::api
