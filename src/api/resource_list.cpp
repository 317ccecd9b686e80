// Resource lists and a pod's effective requests and limits (see resource_list.h).
#include "api/resource_list.h"

#include "api/json_fields.h"
#include "api/pod_resources.h"

namespace k3c::api {

namespace {

using nlohmann::json;

ResourceList container_resources(const json& container, const char* which) {
  return resource_list(member(member(container, "resources"), which));
}

}  // namespace

ResourceList resource_list(const json& map) {
  ResourceList out;
  if (!map.is_object()) return out;
  for (const auto& [name, value] : map.items()) {
    std::optional<api::Quantity> q;
    if (value.is_string()) {
      q = api::Quantity::parse(value.get<std::string>());
    } else if (value.is_number_integer()) {
      q = api::Quantity::from_value(value.get<int64_t>());
    } else if (value.is_number()) {
      q = api::Quantity::parse(value.dump());
    }
    if (q) out.emplace(name, *q);
  }
  return out;
}

json to_json(const ResourceList& list) {
  json out = json::object();
  for (const auto& [name, q] : list) out[name] = q.to_string();
  return out;
}

std::string pretty(const ResourceList& list) {
  std::string out;
  for (const auto& [name, q] : list) {
    if (!out.empty()) out += ",";
    out += name + "=" + q.to_string();
  }
  return out;
}

void add_into(ResourceList& into, const ResourceList& more) {
  for (const auto& [name, q] : more) {
    auto [it, fresh] = into.emplace(name, q);
    if (!fresh) it->second += q;
  }
}

void max_into(ResourceList& into, const ResourceList& other) {
  for (const auto& [name, q] : other) {
    auto [it, fresh] = into.emplace(name, q);
    if (!fresh && q > it->second) it->second = q;
  }
}

ResourceList pod_resources(const json& spec, const char* which) {
  ResourceList total = api::pod_containers_total<ResourceList>(
      spec, [&](const json& c) { return container_resources(c, which); }, add_into, max_into);
  // Overhead adds to every request, but only to limits that are set (as upstream).
  ResourceList overhead = resource_list(member(spec, "overhead"));
  if (std::string_view(which) == "limits") {
    std::erase_if(overhead, [&](const auto& e) { return !total.count(e.first); });
  }
  add_into(total, overhead);
  return total;
}

}  // namespace k3c::api
