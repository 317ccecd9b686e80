#include "roles/controllers/serviceaccount/service_account_controller.h"

#include "roles/controllers/common/objects.h"

namespace k3c::controllers {

namespace {
constexpr const char* kRootCa = "kube-root-ca.crt";
}

ServiceAccountController::ServiceAccountController(ControllerContext& ctx)
    : Controller("serviceaccount"),
      ctx_(ctx),
      namespaces_(ctx.informers.informer(client::resources::kNamespaces)),
      accounts_(ctx.informers.informer(client::resources::kServiceAccounts)),
      configmaps_(ctx.informers.informer(client::resources::kConfigMaps)) {
  auto by_namespace = [this](const client::ObjectPtr& o) {
    std::string ns = namespace_of(*o);
    enqueue(ns.empty() ? name_of(*o) : ns);
  };
  namespaces_.add_handler({by_namespace, [=](auto&, auto& o) { by_namespace(o); }, nullptr});
  accounts_.add_handler({nullptr, nullptr, by_namespace});
  configmaps_.add_handler({nullptr, [=](auto&, auto& o) { by_namespace(o); }, by_namespace});
}

Status ServiceAccountController::reconcile(const std::string& ns) {
  auto namespace_object = namespaces_.get(ns);
  if (!namespace_object || being_deleted(*namespace_object)) return Status::ok();
  if (!accounts_.get(ns + "/default")) {
    json sa = {{"apiVersion", "v1"},
               {"kind", "ServiceAccount"},
               {"metadata", {{"name", "default"}, {"namespace", ns}}}};
    auto created = client::create(ctx_.client, client::resources::kServiceAccounts, ns, sa);
    if (!created.is_ok() && created.status().code() != Code::kAlreadyExists)
      return created.status();
  }
  if (ctx_.root_ca_pem.empty()) return Status::ok();
  auto cm = configmaps_.get(ns + "/" + kRootCa);
  json data = {{"ca.crt", ctx_.root_ca_pem}};
  if (!cm) {
    json object = {{"apiVersion", "v1"},
                   {"kind", "ConfigMap"},
                   {"metadata",
                    {{"name", kRootCa},
                     {"namespace", ns},
                     {"annotations",
                      {{"kubernetes.io/description",
                        "The cluster CA bundle, for verifying the API server at its "
                        "in-cluster names (kubernetes.default.svc, the service IP)."}}}}},
                   {"data", data}};
    auto created = client::create(ctx_.client, client::resources::kConfigMaps, ns, object);
    if (!created.is_ok() && created.status().code() != Code::kAlreadyExists)
      return created.status();
  } else if (cm->value("data", json::object()) != data) {
    json updated = *cm;
    updated["data"] = data;
    auto written = client::update(ctx_.client, client::resources::kConfigMaps, updated);
    if (!written.is_ok()) return written.status();
  }
  return Status::ok();
}

}  // namespace k3c::controllers
