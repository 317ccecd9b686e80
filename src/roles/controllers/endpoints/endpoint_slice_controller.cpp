#include "roles/controllers/endpoints/endpoint_slice_controller.h"

#include <map>

#include "api/json_fields.h"
#include "roles/controllers/common/object_reads.h"
#include "roles/controllers/endpoints/endpoint_math.h"
#include "roles/controllers/endpoints/slice_writer.h"

namespace k3c::controllers {

EndpointSliceController::EndpointSliceController(ControllerContext& ctx)
    : ServiceEndpointsController("endpointslice", ctx),
      slices_(ctx.informers.informer(client::resources::kEndpointSlices)),
      nodes_(ctx.informers.informer(client::resources::kNodes)),
      expectations_(ctx.clock) {
  slices_.add_handler(slice_handler(*this, expectations_, kManagedBy));
}

Status EndpointSliceController::sync(const json& service, const std::vector<json>& pods) {
  const std::string ns = namespace_of(service), name = name_of(service);
  const std::string key = ns + "/" + name;
  if (!expectations_.satisfied(key)) return Status::ok();  // woken again when seen

  // Zones of the nodes the pods run on.
  std::map<std::string, std::string> zones;
  for (const json& pod : pods) {
    const std::string node = api::text(api::member(pod, "spec"), "nodeName");
    if (node.empty() || zones.count(node)) continue;
    auto n = nodes_.cached(node);
    if (!n) continue;
    const std::string zone(read_cached(n, [](const auto& v) {
      return member_text(member_or_null(member_or_null(v, "metadata"), "labels"),
                         "topology.kubernetes.io/zone");
    }));
    if (!zone.empty()) zones[node] = zone;
  }
  std::vector<SliceContent> desired = desired_slices(service, pods, zones);
  if (desired.empty()) desired.emplace_back();  // the placeholder
  std::vector<json> existing;
  for (const auto& slice : slices_.in_namespace(ns)) {
    if (slice_service_key(*slice, kManagedBy) == key) existing.push_back(*slice);
  }
  SliceSet set;
  set.ns = ns;
  set.service = name;
  set.labels = endpoint_labels(service);
  set.labels[kServiceNameLabel] = name;
  set.labels[kManagedByLabel] = kManagedBy;
  set.owner_ref = controller_ref_to(service, "v1", "Service");
  return write_slices(ctx_, expectations_, key, set, desired, std::move(existing));
}

}  // namespace k3c::controllers
