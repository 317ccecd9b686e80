#include "roles/controllers/endpoints/endpoint_slice_mirroring_controller.h"

#include "api/json_fields.h"
#include "roles/controllers/endpoints/endpoint_math.h"
#include "roles/controllers/endpoints/slice_writer.h"

namespace k3c::controllers {
namespace {

constexpr const char* kSkipMirrorLabel = "endpointslice.kubernetes.io/skip-mirror";

bool has_selector(const json& service) {
  const json& selector = api::member(api::member(service, "spec"), "selector");
  return selector.is_object() && !selector.empty();
}

}  // namespace

EndpointSliceMirroringController::EndpointSliceMirroringController(ControllerContext& ctx)
    : Controller("endpointslice-mirroring"),
      ctx_(ctx),
      services_(ctx.informers.informer(client::resources::kServices)),
      endpoints_(ctx.informers.informer(client::resources::kEndpoints)),
      slices_(ctx.informers.informer(client::resources::kEndpointSlices)),
      expectations_(ctx.clock) {
  auto by_key = [this](const client::ObjectPtr& o) { enqueue(client::key_of(*o)); };
  services_.add_handler({by_key, [=](auto&, auto& o) { by_key(o); }, by_key});
  endpoints_.add_handler({by_key, [=](auto&, auto& o) { by_key(o); }, by_key});
  slices_.add_handler(slice_handler(*this, expectations_, kManagedBy));
}

Status EndpointSliceMirroringController::reconcile(const std::string& key) {
  if (!expectations_.satisfied(key)) return Status::ok();  // woken again when seen
  auto [ns, name] = client::split_key(key);
  auto service = services_.get(key);
  auto endpoints = endpoints_.get(key);
  std::vector<json> existing;
  for (const auto& slice : slices_.in_namespace(ns)) {
    if (slice_service_key(*slice, kManagedBy) == key) existing.push_back(*slice);
  }
  const json& ep_labels = endpoints ? api::member(api::member(*endpoints, "metadata"), "labels")
                                    : api::member(json(), "");
  const bool mirror = service && !has_selector(*service) && endpoints &&
                      api::text(ep_labels, kSkipMirrorLabel) != "true";
  SliceSet set;
  set.ns = ns;
  set.service = name;
  std::vector<SliceContent> desired;
  if (mirror) {
    desired = mirrored_slices(*endpoints);
    set.labels = ep_labels.is_object() ? ep_labels : json::object();
    set.labels.erase(kSkipMirrorLabel);
    set.labels[kServiceNameLabel] = name;
    set.labels[kManagedByLabel] = kManagedBy;
    set.owner_ref = controller_ref_to(*endpoints, "v1", "Endpoints");
  }
  if (desired.empty() && existing.empty()) return Status::ok();
  return write_slices(ctx_, expectations_, key, set, desired, std::move(existing));
}

}  // namespace k3c::controllers
