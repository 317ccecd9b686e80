// Downward API values (see field_ref.h).
#include "roles/kubelet/pods/field_ref.h"

#include <algorithm>

#include "api/quantity.h"
#include "core/go_format.h"

namespace k3c::kubelet {

using nlohmann::json;

namespace {

std::string str_at(const json& object, const json::json_pointer& ptr) {
  if (!object.contains(ptr)) return "";
  const json& v = object.at(ptr);
  return v.is_string() ? v.get<std::string>() : "";
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ",") + s;
  return out;
}

// metadata.labels / metadata.annotations as a whole: sorted `k="v"` lines.
std::string format_map(const json& map) {
  std::vector<std::string> lines;
  if (map.is_object()) {
    for (const auto& [k, v] : map.items()) {
      lines.push_back(k + "=" + go_quote(v.is_string() ? v.get<std::string>() : ""));
    }
  }
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) out += (i ? "\n" : "") + lines[i];
  return out;
}

// "metadata.labels['app']" -> ("metadata.labels", "app"); false when not subscripted.
bool split_subscript(std::string_view path, std::string& base, std::string& key) {
  auto open = path.find("['");
  if (open == std::string_view::npos || path.size() < open + 4 ||
      path.substr(path.size() - 2) != "']")
    return false;
  base = std::string(path.substr(0, open));
  key = std::string(path.substr(open + 2, path.size() - open - 4));
  return true;
}

const json* find_container(const json& pod, const std::string& name) {
  for (const char* list : {"containers", "initContainers"}) {
    auto spec = pod.find("spec");
    if (spec == pod.end() || !spec->contains(list)) continue;
    for (const auto& c : (*spec)[list]) {
      if (c.value("name", "") == name) return &c;
    }
  }
  return nullptr;
}

}  // namespace

Result<std::string> pod_field_value(const json& pod, std::string_view field_path,
                                    const std::vector<std::string>& pod_ips,
                                    const NodeFacts& node) {
  std::string base, key;
  if (split_subscript(field_path, base, key)) {
    if (base == "metadata.labels" || base == "metadata.annotations") {
      const json& map =
          pod.value("metadata", json::object())
              .value(base == "metadata.labels" ? "labels" : "annotations", json::object());
      auto it = map.find(key);
      return it != map.end() && it->is_string() ? it->get<std::string>() : std::string();
    }
    return error(Code::kInvalid, "unsupported fieldPath: " + std::string(field_path));
  }
  const std::string path(field_path);
  if (path == "metadata.name") return str_at(pod, "/metadata/name"_json_pointer);
  if (path == "metadata.namespace") return str_at(pod, "/metadata/namespace"_json_pointer);
  if (path == "metadata.uid") return str_at(pod, "/metadata/uid"_json_pointer);
  if (path == "metadata.labels") {
    return format_map(pod.value("metadata", json::object()).value("labels", json::object()));
  }
  if (path == "metadata.annotations") {
    return format_map(pod.value("metadata", json::object()).value("annotations", json::object()));
  }
  if (path == "spec.nodeName") return str_at(pod, "/spec/nodeName"_json_pointer);
  if (path == "spec.serviceAccountName") {
    return str_at(pod, "/spec/serviceAccountName"_json_pointer);
  }
  if (path == "spec.restartPolicy") return str_at(pod, "/spec/restartPolicy"_json_pointer);
  if (path == "spec.schedulerName") return str_at(pod, "/spec/schedulerName"_json_pointer);
  if (path == "status.phase") return str_at(pod, "/status/phase"_json_pointer);
  if (path == "status.hostIP") return node.host_ips.empty() ? "" : node.host_ips.front();
  if (path == "status.hostIPs") return join(node.host_ips);
  if (path == "status.podIP") return pod_ips.empty() ? "" : pod_ips.front();
  if (path == "status.podIPs") return join(pod_ips);
  return error(Code::kInvalid, "unsupported fieldPath: " + path);
}

Result<std::string> container_resource_value(const json& pod, const json& container,
                                             const json& selector, const NodeFacts& node) {
  const json* target = &container;
  const std::string container_name = selector.value("containerName", "");
  if (!container_name.empty()) {
    target = find_container(pod, container_name);
    if (!target) return error(Code::kInvalid, "container " + container_name + " not found");
  }
  const std::string resource = selector.value("resource", "");
  const auto dot = resource.find('.');
  const std::string kind = resource.substr(0, dot);  // limits | requests
  const std::string name = dot == std::string::npos ? "" : resource.substr(dot + 1);
  const bool known = (kind == "limits" || kind == "requests") &&
                     (name == "cpu" || name == "memory" || name == "ephemeral-storage" ||
                      name.rfind("hugepages-", 0) == 0);
  if (!known) return error(Code::kInvalid, "unsupported container resource : " + resource);

  std::string divisor_text = "1";
  if (auto d = selector.find("divisor"); d != selector.end() && d->is_string()) {
    divisor_text = d->get<std::string>();
  } else if (d != selector.end() && d->is_number()) {
    divisor_text = d->dump();
  }
  auto divisor = api::Quantity::parse(divisor_text);
  if (!divisor || divisor->is_zero() || divisor->negative()) {
    return error(Code::kInvalid, "invalid divisor " + divisor_text);
  }

  // The container's amount; a missing limit of cpu, memory or ephemeral storage reads the
  // node's allocatable amount (upstream's defaultPodLimitsForDownwardAPI).
  std::optional<api::Quantity> amount;
  const json& list = target->value("resources", json::object()).value(kind, json::object());
  if (auto it = list.find(name); it != list.end()) {
    amount = api::Quantity::parse(it->is_string() ? it->get<std::string>() : it->dump());
  }
  if (!amount && kind == "limits" && name.rfind("hugepages-", 0) != 0) {
    if (auto it = node.allocatable.find(name); it != node.allocatable.end()) {
      amount = api::Quantity::parse(it->second);
    }
  }
  if (!amount) amount = api::Quantity();
  if (name == "cpu") {
    const int64_t milli = amount->milli_value(), per = divisor->milli_value();
    return std::to_string(milli / per + (milli % per != 0 ? 1 : 0));
  }
  const int64_t value = amount->value(), per = divisor->value();
  if (per == 0) return error(Code::kInvalid, "invalid divisor " + divisor_text);
  return std::to_string(value / per + (value % per != 0 ? 1 : 0));
}

}  // namespace k3c::kubelet
