// The state of one StatefulSet reconcile, shared by the controller's files.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "roles/controllers/statefulset/stateful_pods.h"

namespace k3c::controllers {

struct StatefulSetSync {
  json set;
  json current_set;                               // the set with its current revision's template
  json update_set;                                // ... and with its update revision's template
  std::string current_revision, update_revision;  // revision names
  int64_t collision_count = 0;
  bool monotonic = true;  // OrderedReady
  int64_t min_ready = 0;
  std::chrono::system_clock::time_point now;
  // replicas[i] is ordinal start+i: a pod from the API, or one to create (no status.phase).
  std::vector<json> replicas;
  std::vector<json> condemned;                  // outside the range, highest ordinal first
  std::string first_unhealthy;                  // the unhealthy pod with the lowest ordinal
  std::optional<std::chrono::seconds> recheck;  // a pod becomes available later
};

}  // namespace k3c::controllers
