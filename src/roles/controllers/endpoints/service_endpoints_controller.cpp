#include "roles/controllers/endpoints/service_endpoints_controller.h"

#include "api/object_selectors.h"
#include "roles/controllers/common/object_reads.h"

namespace k3c::controllers {
namespace {

std::optional<LabelSelector> selector_of(const json& service) {
  auto spec = service.find("spec");
  if (spec == service.end() || !spec->is_object()) return std::nullopt;
  return api::map_selector_of(spec->value("selector", json()));
}

}  // namespace

json endpoint_labels(const json& service) {
  json labels = service.value("metadata", json::object()).value("labels", json::object());
  if (!labels.is_object()) labels = json::object();
  auto spec = service.find("spec");
  if (spec != service.end() && spec->is_object() && spec->value("clusterIP", "") == "None") {
    labels["service.kubernetes.io/headless"] = "";
  }
  return labels;
}

ServiceEndpointsController::ServiceEndpointsController(std::string name, ControllerContext& ctx)
    : Controller(std::move(name)),
      ctx_(ctx),
      services_(ctx.informers.informer(client::resources::kServices)),
      pods_(ctx.informers.informer(client::resources::kPods)) {
  auto service_changed = [this](const client::ObjectPtr& s) { enqueue(client::key_of(*s)); };
  services_.add_handler(
      {service_changed, [=](auto&, auto& s) { service_changed(s); }, service_changed});
  pods_.add_handler({[this](const client::ObjectPtr& p) { pod_changed(nullptr, p.get()); },
                     [this](const client::ObjectPtr& old_pod, const client::ObjectPtr& p) {
                       pod_changed(old_pod.get(), p.get());
                     },
                     [this](const client::ObjectPtr& p) { pod_changed(p.get(), nullptr); }});
}

void ServiceEndpointsController::pod_changed(const json* old_pod, const json* new_pod) {
  const json& any = new_pod ? *new_pod : *old_pod;
  for (const auto& service : services_.in_namespace(namespace_of(any))) {
    auto selector = selector_of(*service);
    if (!selector) continue;
    if ((old_pod && selector->matches(api::labels_of(*old_pod))) ||
        (new_pod && selector->matches(api::labels_of(*new_pod)))) {
      enqueue(client::key_of(*service));
    }
  }
}

Status ServiceEndpointsController::reconcile(const std::string& key) {
  const size_t slash = key.find('/');
  const std::string ns = key.substr(0, slash), name = key.substr(slash + 1);
  auto service = services_.get(key);
  if (!service) return service_gone(ns, name);
  auto selector = selector_of(*service);
  if (!selector) return Status::ok();
  std::vector<json> pods;  // trees only of the selected pods: the cache keeps documents
  for (const auto& cached : pods_.cached_by_index("namespace", ns)) {
    if (read_cached(cached, [&](const auto& pod) { return api::selects(*selector, pod); }))
      pods.push_back(cached.doc ? cached.doc->root().to_json() : *cached.tree);
  }
  return sync(*service, pods);
}

}  // namespace k3c::controllers
