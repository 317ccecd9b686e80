// Horizontal pod autoscaler (upstream's podautoscaler controller). Every sync period
// (horizontal-pod-autoscaler-sync-period, 15 s) each HPA reads its target's scale
// subresource (any resource serving one: found through discovery), keeps the replicas within
// minReplicas..maxReplicas (SuccessfulRescale events as upstream), and records what it saw in
// status (currentReplicas, desiredReplicas, lastScaleTime, the AbleToScale / ScalingActive
// conditions).
//
// Metrics: k3c has no metrics API yet (metrics.k8s.io comes with the metrics issue), so no
// metric yields a replica count: ScalingActive is False with reason FailedGetResourceMetric
// (or FailedGetPodsMetric, ...) and a message saying so, and a FailedComputeMetricsReplicas
// event is recorded; nothing is scaled on a guess. The scaling arithmetic a metric will feed
// (tolerance, stabilization windows, behavior policies) is ready in scaling_math.h; the
// metrics issue adds the path from a metric value through it to a new scale.
#pragma once

#include <string>

#include "roles/controllers/common/context.h"
#include "roles/controllers/common/controller.h"
#include "roles/controllers/controller_settings.h"

namespace k3c::controllers {

class PodAutoscalerController final : public Controller {
 public:
  PodAutoscalerController(ControllerContext& ctx, const ControllerManagerSettings& settings);
  Status reconcile(const std::string& key) override;

 private:
  struct Target {
    client::ResourceId resource;
    std::string name;
  };
  // The resource serving scaleTargetRef's kind with a scale subresource.
  Result<Target> target_of(const json& hpa, const std::string& ns);
  Result<json> get_scale(const Target& target, const std::string& ns);
  Status write_status(const json& hpa, json status);

  ControllerContext& ctx_;
  const std::chrono::milliseconds sync_period_;
  client::Informer& autoscalers_;
};

}  // namespace k3c::controllers
