#include "roles/controllers/endpoints/endpoints_controller.h"

#include "roles/controllers/endpoints/endpoint_math.h"

namespace k3c::controllers {

EndpointsController::EndpointsController(ControllerContext& ctx)
    : ServiceEndpointsController("endpoint", ctx),
      endpoints_(ctx.informers.informer(client::resources::kEndpoints)) {
  // Someone else changed or deleted our Endpoints: put them back.
  auto changed = [this](const client::ObjectPtr& e) {
    if (services_.get(client::key_of(*e))) enqueue(client::key_of(*e));
  };
  endpoints_.add_handler({nullptr, [=](auto&, auto& e) { changed(e); }, changed});
}

Status EndpointsController::service_gone(const std::string& ns, const std::string& name) {
  if (!endpoints_.get(ns + "/" + name)) return Status::ok();
  Status removed = client::remove(ctx_.client, client::resources::kEndpoints, ns, name);
  return removed.code() == Code::kNotFound ? Status::ok() : removed;
}

Status EndpointsController::sync(const json& service, const std::vector<json>& pods) {
  const std::string ns = namespace_of(service), name = name_of(service);
  json subsets = endpoints_subsets(service, pods);
  json labels = endpoint_labels(service);
  auto existing = endpoints_.get(ns + "/" + name);
  if (!existing) {
    json endpoints = {{"apiVersion", "v1"},
                      {"kind", "Endpoints"},
                      {"metadata", {{"name", name}, {"namespace", ns}, {"labels", labels}}},
                      {"subsets", subsets}};
    auto created = client::create(ctx_.client, client::resources::kEndpoints, ns, endpoints);
    if (created.is_ok() || created.status().code() == Code::kAlreadyExists) return Status::ok();
    return created.status();
  }
  json current_labels = existing->value("metadata", json::object()).value("labels", json::object());
  if (existing->value("subsets", json::array()) == subsets && current_labels == labels) {
    return Status::ok();
  }
  json updated = *existing;
  updated["subsets"] = subsets;
  updated["metadata"]["labels"] = labels;
  auto written = client::update(ctx_.client, client::resources::kEndpoints, updated);
  return written.is_ok() ? Status::ok() : written.status();
}

}  // namespace k3c::controllers
