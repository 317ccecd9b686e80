// A container's environment (see container_env.h).
#include "roles/kubelet/pods/container_env.h"

#include <algorithm>

#include "core/base64.h"
#include "roles/kubelet/pods/expansion.h"
#include "roles/kubelet/pods/field_ref.h"

namespace k3c::kubelet {

using nlohmann::json;

namespace {

// An ordered environment: a later set() of a known name replaces its value in place.
class OrderedEnv {
 public:
  void set(const std::string& name, std::string value) {
    auto [it, inserted] = index_.emplace(name, entries_.size());
    if (inserted) {
      entries_.push_back({name, std::move(value)});
    } else {
      entries_[it->second].second = std::move(value);
    }
  }
  std::vector<std::string> lines() const {
    std::vector<std::string> out;
    out.reserve(entries_.size());
    for (const auto& [k, v] : entries_) out.push_back(k + "=" + v);
    return out;
  }

 private:
  std::vector<std::pair<std::string, std::string>> entries_;
  std::map<std::string, size_t> index_;
};

// The ConfigMaps and Secrets of one pod, each fetched once per environment.
class Objects {
 public:
  Objects(ConfigSource& source, std::string ns) : source_(source), ns_(std::move(ns)) {}
  // The object's data as plain strings (Secret data decoded), or nullopt when it does not
  // exist; other errors pass through.
  Result<std::optional<std::map<std::string, std::string>>> data(bool secret,
                                                                 const std::string& name) {
    auto& cache = secret ? secrets_ : config_maps_;
    if (auto it = cache.find(name); it != cache.end()) return it->second;
    auto got = secret ? source_.secret(ns_, name) : source_.config_map(ns_, name);
    std::optional<std::map<std::string, std::string>> data;
    if (!got.is_ok()) {
      if (got.status().code() != Code::kNotFound) return got.status();
    } else {
      // Only `data` counts (ConfigMap binaryData is not offered as env, as upstream);
      // Secret data is base64 on the wire.
      data.emplace();
      if (auto it = got->find("data"); it != got->end() && it->is_object()) {
        for (const auto& [k, v] : it->items()) {
          if (!v.is_string()) continue;
          std::string text = v.get<std::string>();
          if (secret) text = base64_decode(text).value_or("");
          data->emplace(k, std::move(text));
        }
      }
    }
    cache[name] = data;
    return data;
  }
  const std::string& ns() const { return ns_; }

 private:
  ConfigSource& source_;
  const std::string ns_;
  std::map<std::string, std::optional<std::map<std::string, std::string>>> config_maps_, secrets_;
};

Status not_found(bool secret, const std::string& name) {
  return error(Code::kNotFound,
               std::string(secret ? "secret" : "configmap") + " \"" + name + "\" not found");
}

bool optional_flag(const json& ref) {
  auto it = ref.find("optional");
  return it != ref.end() && it->is_boolean() && it->get<bool>();
}

// envFrom into `declared` (and `order`).
Status apply_env_from(const json& container, Objects& objects,
                      std::map<std::string, std::string>& declared, OrderedEnv& order,
                      std::vector<EnvWarning>& warnings) {
  auto list = container.find("envFrom");
  if (list == container.end() || !list->is_array()) return Status::ok();
  for (const auto& source : *list) {
    const bool secret = source.contains("secretRef");
    const char* field = secret ? "secretRef" : "configMapRef";
    if (!source.contains(field)) continue;
    const json& ref = source[field];
    const std::string name = ref.value("name", "");
    ASSIGN_OR_RETURN(auto data, objects.data(secret, name));
    if (!data) {
      if (optional_flag(ref)) continue;
      return not_found(secret, name);
    }
    const std::string prefix = source.value("prefix", "");
    std::vector<std::string> invalid;
    for (const auto& [k, v] : *data) {  // sorted by key: a stable order
      const std::string key = prefix + k;
      if (!valid_env_name(key)) {
        invalid.push_back(key);
        continue;
      }
      declared[key] = v;
      order.set(key, v);
    }
    if (!invalid.empty()) {
      std::string keys;
      for (const auto& k : invalid) keys += (keys.empty() ? "" : ", ") + k;
      warnings.push_back({"InvalidEnvironmentVariableNames",
                          "Keys [" + keys + "] from the EnvFrom " +
                              (secret ? "secret " : "configMap ") + objects.ns() + "/" + name +
                              " were skipped since they are considered invalid environment "
                              "variable names."});
    }
  }
  return Status::ok();
}

// One env entry's value; nullopt when an optional source is missing (the entry is skipped).
Result<std::optional<std::string>> env_value(const json& pod, const json& container,
                                             const json& entry, Objects& objects,
                                             const NodeFacts& node,
                                             const std::vector<std::string>& pod_ips,
                                             const VarLookup& lookup) {
  const std::string value = entry.value("value", "");
  auto from = entry.find("valueFrom");
  if (!value.empty() || from == entry.end() || !from->is_object()) {
    return std::optional<std::string>(expand_vars(value, lookup));
  }
  if (auto f = from->find("fieldRef"); f != from->end()) {
    ASSIGN_OR_RETURN(auto v, pod_field_value(pod, f->value("fieldPath", ""), pod_ips, node));
    return std::optional<std::string>(std::move(v));
  }
  if (auto r = from->find("resourceFieldRef"); r != from->end()) {
    ASSIGN_OR_RETURN(auto v, container_resource_value(pod, container, *r, node));
    return std::optional<std::string>(std::move(v));
  }
  const bool secret = from->contains("secretKeyRef");
  const char* field = secret ? "secretKeyRef" : "configMapKeyRef";
  if (!from->contains(field)) return std::optional<std::string>("");
  const json& ref = (*from)[field];
  const std::string name = ref.value("name", ""), key = ref.value("key", "");
  const bool optional = optional_flag(ref);
  ASSIGN_OR_RETURN(auto data, objects.data(secret, name));
  if (!data) {
    if (optional) return std::optional<std::string>();
    return not_found(secret, name);
  }
  auto it = data->find(key);
  if (it == data->end()) {
    if (optional) return std::optional<std::string>();
    return error(Code::kNotFound, "couldn't find key " + key + " in " +
                                      (secret ? "Secret " : "ConfigMap ") + objects.ns() + "/" +
                                      name);
  }
  return std::optional<std::string>(it->second);
}

}  // namespace

bool valid_env_name(std::string_view name) {
  if (name.empty()) return false;
  return std::all_of(name.begin(), name.end(),
                     [](unsigned char c) { return c >= 0x20 && c < 0x7f && c != '='; });
}

Result<ContainerEnv> container_env(const json& pod, const json& container,
                                   const std::vector<std::string>& image_env, ConfigSource& objects,
                                   const NodeFacts& node, const std::vector<std::string>& pod_ips,
                                   const std::map<std::string, std::string>& services) {
  ContainerEnv out;
  OrderedEnv order;
  for (const auto& line : image_env) {
    const auto eq = line.find('=');
    if (eq == std::string::npos) {
      order.set(line, "");
    } else {
      order.set(line.substr(0, eq), line.substr(eq + 1));
    }
  }
  Objects cache(objects, pod.value("metadata", json::object()).value("namespace", ""));
  RETURN_IF_ERROR(apply_env_from(container, cache, out.declared, order, out.warnings));
  VarLookup lookup = [&out, &services](std::string_view name) -> std::optional<std::string> {
    auto it = out.declared.find(std::string(name));
    if (it != out.declared.end()) return it->second;
    auto service = services.find(std::string(name));
    if (service != services.end()) return service->second;
    return std::nullopt;
  };
  if (auto list = container.find("env"); list != container.end() && list->is_array()) {
    for (const auto& entry : *list) {
      const std::string name = entry.value("name", "");
      ASSIGN_OR_RETURN(auto value, env_value(pod, container, entry, cache, node, pod_ips, lookup));
      if (!value) continue;
      out.declared[name] = *value;
      order.set(name, std::move(*value));
    }
  }
  for (const auto& [name, value] : services) {
    if (out.declared.emplace(name, value).second) order.set(name, value);
  }
  out.env = order.lines();
  return out;
}

}  // namespace k3c::kubelet
