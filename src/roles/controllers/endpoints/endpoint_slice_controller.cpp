#include "roles/controllers/endpoints/endpoint_slice_controller.h"

#include <algorithm>

#include "roles/controllers/endpoints/endpoint_math.h"

namespace k3c::controllers {

std::string EndpointSliceController::service_key_of(const json& slice) {
  json labels = slice.value("metadata", json::object()).value("labels", json::object());
  if (!labels.is_object() || labels.value(kManagedByLabel, "") != kManagedBy) return "";
  const std::string service = labels.value(kServiceNameLabel, "");
  return service.empty() ? "" : namespace_of(slice) + "/" + service;
}

EndpointSliceController::EndpointSliceController(ControllerContext& ctx)
    : ServiceEndpointsController("endpointslice", ctx),
      slices_(ctx.informers.informer(client::resources::kEndpointSlices)),
      expectations_(ctx.clock) {
  slices_.add_handler({[this](const client::ObjectPtr& s) {
                         const std::string key = service_key_of(*s);
                         if (key.empty()) return;
                         expectations_.creation_observed(key);
                         enqueue(key);
                       },
                       [this](const client::ObjectPtr&, const client::ObjectPtr& s) {
                         const std::string key = service_key_of(*s);
                         if (!key.empty()) enqueue(key);
                       },
                       [this](const client::ObjectPtr& s) {
                         const std::string key = service_key_of(*s);
                         if (key.empty()) return;
                         expectations_.deletion_observed(key);
                         enqueue(key);
                       }});
}

Status EndpointSliceController::sync(const json& service, const std::vector<json>& pods) {
  const std::string ns = namespace_of(service), name = name_of(service);
  const std::string key = ns + "/" + name;
  if (!expectations_.satisfied(key)) return Status::ok();  // woken again when seen

  std::vector<SliceContent> desired = desired_slices(service, pods);
  if (desired.empty()) desired.emplace_back();  // the placeholder
  std::vector<json> existing;
  for (const auto& slice : slices_.in_namespace(ns)) {
    if (service_key_of(*slice) == key) existing.push_back(*slice);
  }
  std::sort(existing.begin(), existing.end(),
            [](const json& a, const json& b) { return name_of(a) < name_of(b); });

  json labels = endpoint_labels(service);
  labels[kServiceNameLabel] = name;
  labels[kManagedByLabel] = kManagedBy;
  auto address_type = [](const SliceContent& c) {
    return !c.endpoints.empty() &&
                   c.endpoints[0]["addresses"][0].get<std::string>().find(':') != std::string::npos
               ? "IPv6"
               : "IPv4";
  };
  const size_t creations = desired.size() > existing.size() ? desired.size() - existing.size() : 0;
  const size_t deletions = existing.size() > desired.size() ? existing.size() - desired.size() : 0;
  expectations_.expect(key, static_cast<int>(creations), static_cast<int>(deletions));

  for (size_t i = 0; i < desired.size(); ++i) {
    const SliceContent& want = desired[i];
    if (i < existing.size()) {
      const json& have = existing[i];
      json have_labels = have.value("metadata", json::object()).value("labels", json::object());
      if (have.value("endpoints", json::array()) == want.endpoints &&
          have.value("ports", json::array()) == want.ports && have_labels == labels &&
          have.value("addressType", "") == address_type(want)) {
        continue;
      }
      json updated = have;
      updated["endpoints"] = want.endpoints;
      updated["ports"] = want.ports;
      updated["addressType"] = address_type(want);
      updated["metadata"]["labels"] = labels;
      auto written = client::update(ctx_.client, client::resources::kEndpointSlices, updated);
      if (!written.is_ok()) return written.status();
      continue;
    }
    json slice = {
        {"apiVersion", "discovery.k8s.io/v1"},
        {"kind", "EndpointSlice"},
        {"metadata",
         {{"generateName", name + "-"},
          {"namespace", ns},
          {"labels", labels},
          {"ownerReferences", json::array({controller_ref_to(service, "v1", "Service")})}}},
        {"addressType", address_type(want)},
        {"endpoints", want.endpoints},
        {"ports", want.ports}};
    auto created = client::create(ctx_.client, client::resources::kEndpointSlices, ns, slice);
    if (!created.is_ok()) {
      expectations_.creation_observed(key);  // will not be observed
      return created.status();
    }
  }
  for (size_t i = desired.size(); i < existing.size(); ++i) {
    client::DeleteOptions options;
    options.precondition_uid = uid_of(existing[i]);
    Status removed = client::remove(ctx_.client, client::resources::kEndpointSlices, ns,
                                    name_of(existing[i]), options);
    if (!removed.is_ok()) {
      expectations_.deletion_observed(key);
      if (removed.code() != Code::kNotFound) return removed;
    }
  }
  return Status::ok();
}

}  // namespace k3c::controllers
