// Upstream's rule for what a pod as a whole needs from a per-container amount (requests or
// limits, in whatever representation the caller keeps them): the app containers and the
// restartable ("sidecar") init containers run together; each ordinary init container runs
// alone next to the sidecars started before it; the pod needs the larger of the two. The
// pod's overhead is the caller's to add (requests and limits treat it differently).
//
// One rule for the scheduler (Resources in integer units) and the admission plugins
// (ResourceList of Quantity): `R` is default-constructible, `add(R&, const R&)` sums and
// `set_max(R&, const R&)` raises each resource to the larger.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

namespace k3c::api {

template <typename R, typename OfContainer, typename Add, typename SetMax>
R pod_containers_total(const nlohmann::json& pod_spec, OfContainer of_container, Add add,
                       SetMax set_max) {
  auto list = [&](const char* name) -> const nlohmann::json* {
    if (!pod_spec.is_object()) return nullptr;
    auto it = pod_spec.find(name);
    return it != pod_spec.end() && it->is_array() ? &*it : nullptr;
  };
  R total{};
  if (const auto* containers = list("containers")) {
    for (const auto& c : *containers) add(total, of_container(c));
  }
  R sidecars{}, init_peak{};
  if (const auto* inits = list("initContainers")) {
    for (const auto& c : *inits) {
      R own = of_container(c);
      auto policy = c.is_object() ? c.find("restartPolicy") : c.end();
      if (c.is_object() && policy != c.end() && *policy == "Always") {
        add(total, own);
        add(sidecars, own);
        set_max(init_peak, sidecars);
      } else {
        add(own, sidecars);
        set_max(init_peak, own);
      }
    }
  }
  set_max(total, init_peak);
  return total;
}

}  // namespace k3c::api
