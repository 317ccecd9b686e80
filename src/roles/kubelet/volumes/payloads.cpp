// Volume payloads (see payloads.h).
#include "roles/kubelet/volumes/payloads.h"

#include "core/base64.h"
#include "roles/kubelet/pods/field_ref.h"

namespace k3c::kubelet::volumes {

using nlohmann::json;

namespace {

constexpr int kDefaultMode = 0644;

int mode_of(const json& object, const char* field, int fallback) {
  auto it = object.find(field);
  return it != object.end() && it->is_number_integer() ? it->get<int>() : fallback;
}

// The key -> value map of the object (data as given, binaryData / secret data decoded).
Result<std::map<std::string, std::string>> values_of(const json& object, bool secret) {
  std::map<std::string, std::string> out;
  auto decode_into = [&](const char* field) -> Status {
    const json values = object.value(field, json::object());  // iterated: not a temporary
    for (const auto& [k, v] : values.items()) {
      auto bytes = base64_decode(v.is_string() ? v.get<std::string>() : "");
      if (!bytes) return error(Code::kInvalid, "invalid base64 data for key " + k);
      out[k] = std::move(*bytes);
    }
    return Status::ok();
  };
  if (secret) {
    RETURN_IF_ERROR(decode_into("data"));
  } else {
    const json data = object.value("data", json::object());
    for (const auto& [k, v] : data.items()) out[k] = v.is_string() ? v.get<std::string>() : "";
    RETURN_IF_ERROR(decode_into("binaryData"));
  }
  return out;
}

// configMap and secret alike: `name` names the object, `what` is "configmap" or "secret".
Result<Payload> keyed_payload(const json& source, const std::string& name, int default_mode,
                              const PayloadInputs& in, bool secret) {
  const std::string ns = in.pod.value("metadata", json::object()).value("namespace", "default");
  const bool optional = source.value("optional", false);
  auto object = secret ? in.objects.secret(ns, name) : in.objects.config_map(ns, name);
  if (!object.is_ok()) {
    if (object.status().code() == Code::kNotFound) {
      if (optional) return Payload{};
      return error(Code::kNotFound,
                   std::string(secret ? "secret" : "configmap") + " \"" + name + "\" not found");
    }
    return object.status();
  }
  ASSIGN_OR_RETURN(auto values, values_of(*object, secret));
  Payload out;
  const int mode = mode_of(source, "defaultMode", default_mode);
  if (!source.contains("items")) {
    for (auto& [k, v] : values) out[k] = {std::move(v), mode};
    return out;
  }
  for (const auto& item : source["items"]) {
    const std::string key = item.value("key", "");
    auto it = values.find(key);
    if (it == values.end()) {
      if (optional) continue;
      return error(Code::kNotFound, secret
                                        ? "references non-existent secret key: " + key
                                        : "configmap references non-existent config key: " + key);
    }
    out[item.value("path", key)] = {it->second, mode_of(item, "mode", mode)};
  }
  return out;
}

}  // namespace

Result<Payload> config_map_payload(const json& source, int default_mode, const PayloadInputs& in) {
  return keyed_payload(source, source.value("name", ""), default_mode, in, false);
}

Result<Payload> secret_payload(const json& source, int default_mode, const PayloadInputs& in) {
  const std::string name =
      source.contains("secretName") ? source.value("secretName", "") : source.value("name", "");
  return keyed_payload(source, name, default_mode, in, true);
}

Result<Payload> downward_api_payload(const json& items, int default_mode, const PayloadInputs& in) {
  Payload out;
  const json status = in.pod.value("status", json::object());
  std::vector<std::string> pod_ips;
  const json ips = status.value("podIPs", json::array());  // iterated: not a temporary
  for (const auto& ip : ips) pod_ips.push_back(ip.value("ip", ""));
  for (const auto& item : items) {
    const std::string path = item.value("path", "");
    std::string value;
    if (item.contains("fieldRef")) {
      ASSIGN_OR_RETURN(value, pod_field_value(in.pod, item["fieldRef"].value("fieldPath", ""),
                                              pod_ips, in.node));
    } else if (item.contains("resourceFieldRef")) {
      const json& selector = item["resourceFieldRef"];
      const std::string wanted = selector.value("containerName", "");
      json container;
      const json containers =
          in.pod.value("spec", json::object()).value("containers", json::array());
      for (const auto& c : containers)
        if (c.value("name", "") == wanted) container = c;
      if (container.is_null()) {
        return error(Code::kInvalid, "container " + wanted + " not found for resourceFieldRef");
      }
      ASSIGN_OR_RETURN(value, container_resource_value(in.pod, container, selector, in.node));
    } else {
      return error(Code::kInvalid, "downwardAPI item " + path + " has no fieldRef");
    }
    out[path] = {std::move(value), mode_of(item, "mode", default_mode)};
  }
  return out;
}

Result<Payload> projected_payload(const json& source, const PayloadInputs& in) {
  const int mode = mode_of(source, "defaultMode", kDefaultMode);
  Payload out;
  const json spec = in.pod.value("spec", json::object());
  const std::string ns = in.pod.value("metadata", json::object()).value("namespace", "default");
  const json sources = source.value("sources", json::array());
  for (const auto& s : sources) {
    Payload part;
    if (s.contains("configMap")) {
      ASSIGN_OR_RETURN(part, config_map_payload(s["configMap"], mode, in));
    } else if (s.contains("secret")) {
      ASSIGN_OR_RETURN(part, secret_payload(s["secret"], mode, in));
    } else if (s.contains("downwardAPI")) {
      ASSIGN_OR_RETURN(
          part, downward_api_payload(s["downwardAPI"].value("items", json::array()), mode, in));
    } else if (s.contains("serviceAccountToken")) {
      const json& t = s["serviceAccountToken"];
      if (!in.tokens) return error(Code::kNotImplemented, "service account tokens not available");
      ASSIGN_OR_RETURN(std::string token,
                       in.tokens(ns, spec.value("serviceAccountName", "default"),
                                 t.value("audience", ""), t.value("expirationSeconds", 3600)));
      part[t.value("path", "token")] = {std::move(token), mode};
    } else {
      return error(Code::kNotImplemented, "projected volume source not implemented: " + s.dump());
    }
    for (auto& [k, v] : part) out[k] = std::move(v);
  }
  return out;
}

}  // namespace k3c::kubelet::volumes
