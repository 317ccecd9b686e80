// LimitRanger: defaults and min/max/ratio checks of LimitRanges (see limit_ranger.h).
#include "roles/apiserver/limit_ranger.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <optional>

#include "api/json_fields.h"
#include "api/resource_list.h"
#include "core/text.h"

namespace k3c::apiserver {

using api::add_into;
using api::max_into;
using api::member;
using api::pod_resources;
using api::pretty;
using api::resource_list;
using api::ResourceList;
using api::text;
using api::to_json;
namespace {

using api::Quantity;
using nlohmann::json;

constexpr int64_t kMaxMilliValue = std::numeric_limits<int64_t>::max() / 1000;

std::vector<const json*> items_of(const json& range, std::string_view type) {
  std::vector<const json*> out;
  const json& limits = member(member(range, "spec"), "limits");
  if (!limits.is_array()) return out;
  for (const json& item : limits) {
    if (item.is_object() && member(item, "type") == type) out.push_back(&item);
  }
  return out;
}

// Sets each default of `defaults` the container lacks; returns the names it set.
std::vector<std::string> fill(json& container, const char* which, const ResourceList& defaults) {
  std::vector<std::string> set;
  if (defaults.empty()) return set;
  json& resources = container["resources"];
  if (!resources.is_object()) resources = json::object();
  json& list = resources[which];
  if (!list.is_object()) list = json::object();
  for (const auto& [name, q] : defaults) {
    if (list.contains(name)) continue;
    list[name] = q.to_string();
    set.push_back(name);
  }
  return set;  // sorted: defaults is a sorted map
}

// Request, limit and enforced value at a common precision (milli-units when none overflows).
struct Values {
  int64_t request, limit, enforced;
};
Values common(const Quantity& request, const Quantity& limit, const Quantity& enforced) {
  Values v{request.value(), limit.value(), enforced.value()};
  if (v.request <= kMaxMilliValue && v.limit <= kMaxMilliValue && v.enforced <= kMaxMilliValue)
    v = {request.milli_value(), limit.milli_value(), enforced.milli_value()};
  return v;
}

std::optional<Quantity> find(const ResourceList& list, const std::string& name) {
  auto it = list.find(name);
  if (it == list.end()) return std::nullopt;
  return it->second;
}

// One resource's bounds. `requests_only`: a PVC's max, which looks at the request alone.
struct Check {
  std::string type;
  const ResourceList& requests;
  const ResourceList& limits;
  std::vector<std::string>& errors;

  void min(const std::string& name, const Quantity& enforced) {
    auto req = find(requests, name), lim = find(limits, name);
    Values v = common(req.value_or(Quantity()), lim.value_or(Quantity()), enforced);
    std::string head = "minimum " + name + " usage per " + type + " is " + enforced.to_string();
    if (!req) {
      errors.push_back(head + ".  No request is specified.");
    } else if (v.request < v.enforced) {
      errors.push_back(head + ", but request is " + req->to_string() + ".");
    } else if (lim && v.limit < v.enforced) {
      errors.push_back(head + ", but limit is " + lim->to_string() + ".");
    }
  }
  void max(const std::string& name, const Quantity& enforced) {
    auto req = find(requests, name), lim = find(limits, name);
    Values v = common(req.value_or(Quantity()), lim.value_or(Quantity()), enforced);
    std::string head = "maximum " + name + " usage per " + type + " is " + enforced.to_string();
    if (!lim) {
      errors.push_back(head + ".  No limit is specified.");
    } else if (v.limit > v.enforced) {
      errors.push_back(head + ", but limit is " + lim->to_string() + ".");
    } else if (req && v.request > v.enforced) {
      errors.push_back(head + ", but request is " + req->to_string() + ".");
    }
  }
  void max_request(const std::string& name, const Quantity& enforced) {
    auto req = find(requests, name);
    Values v = common(req.value_or(Quantity()), Quantity(), enforced);
    std::string head = "maximum " + name + " usage per " + type + " is " + enforced.to_string();
    if (!req) {
      errors.push_back(head + ".  No request is specified.");
    } else if (v.request > v.enforced) {
      errors.push_back(head + ", but request is " + req->to_string() + ".");
    }
  }
  void ratio(const std::string& name, const Quantity& enforced) {
    auto req = find(requests, name), lim = find(limits, name);
    Values v = common(req.value_or(Quantity()), lim.value_or(Quantity()), enforced);
    std::string head =
        name + " max limit to request ratio per " + type + " is " + enforced.to_string();
    if (!req || v.request == 0) {
      errors.push_back(head + ", but no request is specified or request is 0.");
      return;
    }
    if (!lim || v.limit == 0) {
      errors.push_back(head + ", but no limit is specified or limit is 0.");
      return;
    }
    double observed = static_cast<double>(v.limit) / static_cast<double>(v.request);
    double shown = observed;
    double allowed = static_cast<double>(enforced.value());
    if (enforced.value() <= kMaxMilliValue) {
      observed *= 1000;
      allowed = static_cast<double>(enforced.milli_value());
    }
    if (observed > allowed) {
      char text[64];
      std::snprintf(text, sizeof text, "%f", shown);
      errors.push_back(head + ", but provided ratio is " + text + ".");
    }
  }
  void all(const json& item) {
    for (const auto& [n, q] : resource_list(member(item, "min"))) min(n, q);
    for (const auto& [n, q] : resource_list(member(item, "max"))) max(n, q);
    for (const auto& [n, q] : resource_list(member(item, "maxLimitRequestRatio"))) ratio(n, q);
  }
};

std::vector<std::string> pod_errors(const json& pod, const json& range) {
  std::vector<std::string> errors;
  const json& spec = member(pod, "spec");
  for (const json* item : items_of(range, "Container")) {
    for (const char* list : {"containers", "initContainers"}) {
      const json& containers = member(spec, list);
      if (!containers.is_array()) continue;
      for (const json& c : containers) {
        const json& res = member(c, "resources");
        ResourceList requests = resource_list(member(res, "requests"));
        ResourceList limits = resource_list(member(res, "limits"));
        Check{"Container", requests, limits, errors}.all(*item);
      }
    }
  }
  for (const json* item : items_of(range, "Pod")) {
    ResourceList requests = pod_resources(spec, "requests");
    ResourceList limits = pod_resources(spec, "limits");
    Check{"Pod", requests, limits, errors}.all(*item);
  }
  return errors;
}

std::vector<std::string> claim_errors(const json& claim, const json& range) {
  std::vector<std::string> errors;
  ResourceList requests =
      resource_list(member(member(member(claim, "spec"), "resources"), "requests"));
  ResourceList none;  // a claim's limits are not the user's ask
  for (const json* item : items_of(range, "PersistentVolumeClaim")) {
    Check check{"PersistentVolumeClaim", requests, none, errors};
    for (const auto& [n, q] : resource_list(member(*item, "min"))) check.min(n, q);
    for (const auto& [n, q] : resource_list(member(*item, "max"))) check.max_request(n, q);
  }
  return errors;
}

// upstream's aggregate error text: one message alone, several deduplicated in brackets.
std::string aggregate(const std::vector<std::string>& errors) {
  std::vector<std::string> seen;
  for (const auto& e : errors) {
    if (std::find(seen.begin(), seen.end(), e) == seen.end()) seen.push_back(e);
  }
  if (seen.size() == 1) return seen[0];
  return "[" + join(seen, ", ") + "]";
}

}  // namespace

void limit_range_defaults(json& pod, const std::vector<json>& ranges) {
  json* spec = member(pod, "spec").is_object() ? &pod["spec"] : nullptr;
  if (!spec) return;
  for (const json& range : ranges) {
    std::vector<std::string> notes;
    ResourceList requests, limits;
    for (const json* item : items_of(range, "Container")) {
      for (const auto& [n, q] : resource_list(member(*item, "defaultRequest"))) requests[n] = q;
      for (const auto& [n, q] : resource_list(member(*item, "default"))) limits[n] = q;
    }
    for (auto [list, what] :
         {std::pair{"containers", "container"}, std::pair{"initContainers", "init container"}}) {
      json& containers = (*spec)[list];
      if (!containers.is_array()) {
        if (containers.is_null()) spec->erase(list);
        continue;
      }
      for (json& c : containers) {
        if (!c.is_object()) continue;
        std::string name = c.value("name", "");
        auto set_limits = fill(c, "limits", limits);
        auto set_requests = fill(c, "requests", requests);
        if (!set_requests.empty())
          notes.push_back(join(set_requests, ", ") + " request for " + what + " " + name);
        if (!set_limits.empty())
          notes.push_back(join(set_limits, ", ") + " limit for " + what + " " + name);
      }
    }
    // Each range that sets something writes the annotation (the last one stays, as upstream).
    if (notes.empty()) continue;
    json& annotations = pod["metadata"]["annotations"];
    if (!annotations.is_object()) annotations = json::object();
    annotations["kubernetes.io/limit-ranger"] = "LimitRanger plugin set: " + join(notes, "; ");
  }
}

std::string limit_range_violations(const std::string& kind, const json& object,
                                   const std::vector<json>& ranges) {
  for (const json& range : ranges) {
    std::vector<std::string> errors;
    if (kind == "Pod") errors = pod_errors(object, range);
    if (kind == "PersistentVolumeClaim") errors = claim_errors(object, range);
    if (!errors.empty()) return aggregate(errors);
  }
  return "";
}

}  // namespace k3c::apiserver
