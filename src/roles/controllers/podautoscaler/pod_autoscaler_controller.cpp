#include "roles/controllers/podautoscaler/pod_autoscaler_controller.h"

#include "api/json_fields.h"

namespace k3c::controllers {
namespace {

constexpr const char* kAutoscalerSource = "horizontal-pod-autoscaler";  // upstream's event source

// Why no metric gives a replica count: the condition reason and the message upstream's
// controller would word, for the first metric the HPA names (80% CPU when it names none).
std::pair<std::string, std::string> missing_metric(const json& hpa) {
  const json& spec = api::member(hpa, "spec");
  std::string reason = "FailedGetResourceMetric";
  std::string what = "failed to get cpu utilization";
  const json& metrics = api::member(spec, "metrics");
  if (metrics.is_array() && !metrics.empty()) {
    const json& m = metrics[0];
    const std::string type = api::text(m, "type");
    if (type == "Resource" || type == "ContainerResource") {
      const json& source = api::member(m, type == "Resource" ? "resource" : "containerResource");
      const bool utilization = api::text(api::member(source, "target"), "type") == "Utilization";
      reason = type == "Resource" ? "FailedGetResourceMetric" : "FailedGetContainerResourceMetric";
      what =
          "failed to get " + api::text(source, "name") + (utilization ? " utilization" : " usage");
    } else {
      reason = "FailedGet" + type + "Metric";
      const char* field = type == "Pods" ? "pods" : type == "Object" ? "object" : "external";
      what = "failed to get " + api::text(api::member(api::member(m, field), "metric"), "name") +
             " " +
             (type == "Pods"     ? "pods"
              : type == "Object" ? "object"
                                 : "external") +
             " metric value";
    }
  }
  return {reason, what +
                      ": the metrics APIs (metrics.k8s.io, custom.metrics.k8s.io, "
                      "external.metrics.k8s.io) are not available in k3c yet"};
}

int32_t int_field(const json& o, const char* key, int32_t fallback) {
  const json& v = api::member(o, key);
  return v.is_number_integer() ? v.get<int32_t>() : fallback;
}

}  // namespace

PodAutoscalerController::PodAutoscalerController(ControllerContext& ctx,
                                                 const ControllerManagerSettings& settings)
    : Controller("horizontal-pod-autoscaler"),
      ctx_(ctx),
      sync_period_(settings.horizontal_pod_autoscaler_sync_period),
      autoscalers_(ctx.informers.informer(client::resources::kHorizontalPodAutoscalers)) {
  auto changed = [this](const client::ObjectPtr& hpa) { enqueue(client::key_of(*hpa)); };
  autoscalers_.add_handler({changed,
                            [=](const client::ObjectPtr& old, const client::ObjectPtr& now) {
                              // Its own status writes come back here: only spec changes count.
                              if (api::member(*old, "spec") != api::member(*now, "spec")) {
                                changed(now);
                              }
                            },
                            nullptr});
}

Result<PodAutoscalerController::Target> PodAutoscalerController::target_of(const json& hpa,
                                                                           const std::string& ns) {
  const json& ref = api::member(api::member(hpa, "spec"), "scaleTargetRef");
  const std::string api_version = api::text(ref, "apiVersion");
  const std::string kind = api::text(ref, "kind");
  const std::string name = api::text(ref, "name");
  if (kind.empty() || name.empty()) {
    return error(Code::kInvalid, "scaleTargetRef has no kind or name");
  }
  const auto slash = api_version.find('/');
  const std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
  const std::string version =
      slash == std::string::npos ? api_version : api_version.substr(slash + 1);
  const std::string path = group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
  ASSIGN_OR_RETURN(client::Reply reply, ctx_.client.request("GET", path));
  if (reply.status != 200) return client::status_of(reply);
  json list = json::parse(reply.body, nullptr, false);
  std::string plural;
  bool has_scale = false;
  for (const json& r : api::member(list, "resources")) {
    const std::string n = api::text(r, "name");
    if (api::text(r, "kind") == kind && n.find('/') == std::string::npos) plural = n;
  }
  for (const json& r : api::member(list, "resources")) {
    if (!plural.empty() && api::text(r, "name") == plural + "/scale") has_scale = true;
  }
  if (!has_scale) {
    return error(Code::kNotFound, "no scale subresource for kind " + kind + " in " +
                                      (api_version.empty() ? "v1" : api_version));
  }
  return Target{{group, version, plural, true}, name};
}

Result<json> PodAutoscalerController::get_scale(const Target& target, const std::string& ns) {
  ASSIGN_OR_RETURN(client::Reply reply,
                   ctx_.client.request("GET", target.resource.path(ns, target.name, "scale")));
  if (reply.status != 200) return client::status_of(reply);
  return json::parse(reply.body, nullptr, false);
}

Status PodAutoscalerController::write_status(const json& hpa, json status) {
  const client::ResourceId resource = client::resources::kHorizontalPodAutoscalers;
  if (status == api::member(hpa, "status")) return Status::ok();
  json updated = hpa;
  updated["status"] = std::move(status);
  auto written = client::update(ctx_.client, resource, updated, "status");
  if (!written.is_ok() && written.status().code() == Code::kNotFound) return Status::ok();
  return written.status();
}

Status PodAutoscalerController::reconcile(const std::string& key) {
  auto hpa = autoscalers_.get(key);
  if (!hpa || being_deleted(*hpa)) return Status::ok();
  enqueue_after(key, sync_period_);  // the next look, whatever happens now
  const std::string now = ctx_.now();
  const std::string& ns = namespace_of(*hpa);
  const json& old_status = api::member(*hpa, "status");
  json status = old_status.is_object() ? old_status : json::object();
  const json& generation = api::member(api::member(*hpa, "metadata"), "generation");
  if (generation.is_number_integer()) status["observedGeneration"] = generation;

  // The target's scale.
  auto target = target_of(*hpa, ns);
  Result<json> scale = target.is_ok() ? get_scale(*target, ns) : Result<json>(target.status());
  if (!scale.is_ok()) {
    const std::string why = scale.status().message();
    set_condition(status, "AbleToScale", "False", "FailedGetScale",
                  "the HPA controller was unable to get the target's current scale: " + why, now);
    ctx_.events.record(*hpa, "Warning", "FailedGetScale", why, kAutoscalerSource);
    return write_status(*hpa, std::move(status));
  }
  set_condition(status, "AbleToScale", "True", "SucceededGetScale",
                "the HPA controller was able to get the target's current scale", now);

  const json& spec = api::member(*hpa, "spec");
  const int32_t current = int_field(api::member(*scale, "spec"), "replicas", 0);
  const int32_t min_replicas = int_field(spec, "minReplicas", 1);
  const int32_t max_replicas = int_field(spec, "maxReplicas", current);
  status["currentReplicas"] = current;
  int32_t desired = current;
  std::string reason;
  if (current == 0 && min_replicas != 0) {
    set_condition(status, "ScalingActive", "False", "ScalingDisabled",
                  "scaling is disabled since the replica count of the target is zero", now);
  } else if (current > max_replicas) {
    desired = max_replicas;
    reason = "Current number of replicas above Spec.MaxReplicas";
  } else if (current < min_replicas) {
    desired = min_replicas;
    reason = "Current number of replicas below Spec.MinReplicas";
  } else {
    // No metrics API yet: no metric can ask for a count (see the header).
    auto [why, message] = missing_metric(*hpa);
    set_condition(status, "ScalingActive", "False", why,
                  "the HPA was unable to compute the replica count: " + message, now);
    ctx_.events.record(*hpa, "Warning", "FailedComputeMetricsReplicas",
                       "invalid metrics (1 invalid out of 1), first error is: " + message,
                       kAutoscalerSource);
  }
  if (desired != current) {
    json updated_scale = *scale;
    updated_scale["spec"]["replicas"] = desired;
    auto written = client::update(ctx_.client, target->resource, updated_scale, "scale");
    if (!written.is_ok()) {
      const std::string why = written.status().message();
      set_condition(status, "AbleToScale", "False", "FailedUpdateScale",
                    "the HPA controller was unable to update the target scale: " + why, now);
      ctx_.events.record(
          *hpa, "Warning", "FailedRescale",
          "New size: " + std::to_string(desired) + "; reason: " + reason + "; error: " + why,
          kAutoscalerSource);
      RETURN_IF_ERROR(write_status(*hpa, std::move(status)));
      return written.status();
    }
    set_condition(
        status, "AbleToScale", "True", "SucceededRescale",
        "the HPA controller was able to update the target scale to " + std::to_string(desired),
        now);
    ctx_.events.record(*hpa, "Normal", "SuccessfulRescale",
                       "New size: " + std::to_string(desired) + "; reason: " + reason,
                       kAutoscalerSource);
    status["lastScaleTime"] = now;
  }
  status["desiredReplicas"] = desired;
  return write_status(*hpa, std::move(status));
}

}  // namespace k3c::controllers
