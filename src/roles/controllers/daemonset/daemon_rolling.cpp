#include "roles/controllers/daemonset/daemon_rolling.h"

#include <algorithm>

#include "roles/controllers/deployment/rollout_math.h"

namespace k3c::controllers {

namespace {

json rolling_of(const json& ds) {
  json strategy = ds.value("spec", json::object()).value("updateStrategy", json::object());
  if (!strategy.is_object() || strategy.value("type", "RollingUpdate") != "RollingUpdate")
    return json();
  json rolling = strategy.value("rollingUpdate", json::object());
  return rolling.is_object() ? rolling : json::object();
}

}  // namespace

DaemonBounds daemon_bounds(const json& ds, int64_t desired) {
  json rolling = rolling_of(ds);
  if (rolling.is_null()) return {};
  DaemonBounds b;
  b.max_surge = scaled_value(rolling.value("maxSurge", json(0)), desired, true);
  b.max_unavailable = scaled_value(rolling.value("maxUnavailable", json(1)), desired, true);
  if (b.max_surge == 0 && b.max_unavailable == 0) b.max_unavailable = 1;
  return b;
}

bool allows_surge(const json& ds) {
  json rolling = rolling_of(ds);
  return !rolling.is_null() && scaled_value(rolling.value("maxSurge", json(0)), 1, true) > 0;
}

RollingPlan plan_rolling_update(const std::vector<NodeDaemonPods>& nodes, DaemonBounds bounds) {
  RollingPlan plan;
  if (bounds.max_surge == 0) {
    int64_t unavailable = 0;
    std::vector<std::string> replace_now, candidates;
    for (const auto& n : nodes) {
      if (!n.consistent) {
        ++unavailable;  // manage sorts this node out; it counts as down meanwhile
        continue;
      }
      if (n.new_pod.has_value() == n.old_pod.has_value()) {
        ++unavailable;  // none yet, or both: manage creates or deletes
      } else if (n.new_pod) {
        if (!n.new_pod->available) ++unavailable;
      } else if (!n.old_pod->available) {
        replace_now.push_back(n.old_pod->name);  // down anyway
      } else if (unavailable < bounds.max_unavailable) {
        candidates.push_back(n.old_pod->name);
      }
    }
    int64_t room = std::clamp<int64_t>(bounds.max_unavailable - unavailable, 0,
                                       static_cast<int64_t>(candidates.size()));
    plan.delete_pods = std::move(replace_now);
    plan.delete_pods.insert(plan.delete_pods.end(), candidates.begin(), candidates.begin() + room);
    return plan;
  }
  int64_t surging = 0;
  std::vector<std::string> create_now, candidates;
  for (const auto& n : nodes) {
    if (!n.consistent || !n.old_pod) continue;  // nothing old here: manage handles the node
    if (!n.new_pod) {
      if (!n.old_pod->available) {
        if (n.should_run) create_now.push_back(n.node);  // down anyway: replace at once
      } else if (surging < bounds.max_surge) {
        candidates.push_back(n.node);
      }
    } else if (!n.new_pod->available) {
      ++surging;  // the new pod is on its way
    } else {
      plan.delete_pods.push_back(n.old_pod->name);  // the new one took over
    }
  }
  int64_t room =
      std::clamp<int64_t>(bounds.max_surge - surging, 0, static_cast<int64_t>(candidates.size()));
  plan.create_on_nodes = std::move(create_now);
  plan.create_on_nodes.insert(plan.create_on_nodes.end(), candidates.begin(),
                              candidates.begin() + room);
  return plan;
}

}  // namespace k3c::controllers
