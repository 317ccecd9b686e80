// Pod garbage collection (upstream's pod-garbage-collector), every 20 s:
// - terminated pods (Succeeded/Failed) beyond terminated-pod-gc-threshold, oldest first;
// - pods bound to a node that no longer exists (after the node has been gone 40 s, confirmed
//   by the API), marked Failed with DisruptionTarget DeletionByPodGC;
// - pods being deleted that were never scheduled (no kubelet will finish them).
// The last two are deleted with grace period 0, as no kubelet will act on them.
#pragma once

#include <map>

#include "roles/controllers/common/context.h"
#include "roles/controllers/common/controller.h"
#include "roles/controllers/controller_settings.h"

namespace k3c::controllers {

class PodGcController final : public Controller {
 public:
  PodGcController(ControllerContext& ctx, const ControllerManagerSettings& settings);
  Status reconcile(const std::string& key) override;

  static constexpr std::chrono::seconds kPeriod{20};      // upstream gcCheckPeriod
  static constexpr std::chrono::seconds kQuarantine{40};  // upstream quarantineTime

 private:
  Status collect_terminated(const std::vector<client::ObjectPtr>& pods);
  Status collect_orphaned(const std::vector<client::ObjectPtr>& pods);
  Status collect_unscheduled_terminating(const std::vector<client::ObjectPtr>& pods);

  ControllerContext& ctx_;
  const int threshold_;
  client::Informer& pods_;
  client::Informer& nodes_;
  std::map<std::string, Clock::TimePoint> missing_since_;  // node -> first seen missing
};

}  // namespace k3c::controllers
