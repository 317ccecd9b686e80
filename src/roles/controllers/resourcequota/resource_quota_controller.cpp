#include "roles/controllers/resourcequota/resource_quota_controller.h"

#include "api/json_fields.h"
#include "api/resource_quota.h"

namespace k3c::controllers {
namespace {

bool terminal(const json& pod) {
  const std::string phase = pod_phase(pod);
  return phase == "Succeeded" || phase == "Failed";
}

}  // namespace

ResourceQuotaController::ResourceQuotaController(ControllerContext& ctx,
                                                 const ControllerManagerSettings& settings)
    : Controller("resourcequota"),
      ctx_(ctx),
      sync_period_(settings.resource_quota_sync_period),
      quotas_(ctx.informers.informer(client::resources::kResourceQuotas)) {
  auto quota = [this](const client::ObjectPtr& q) { enqueue(client::key_of(*q)); };
  quotas_.add_handler({quota,
                       [=](const client::ObjectPtr& old, const client::ObjectPtr& now) {
                         // The controller's own status writes come back here: only a spec
                         // change needs a recount.
                         if (api::member(*old, "spec") != api::member(*now, "spec")) quota(now);
                       },
                       nullptr});
  auto released = [this](const client::ObjectPtr& object) {
    enqueue_quotas_in(namespace_of(*object));
  };
  ctx.informers.informer(client::resources::kPods)
      .add_handler({nullptr,
                    [=](const client::ObjectPtr& old, const client::ObjectPtr& now) {
                      if (!terminal(*old) && terminal(*now)) released(now);
                    },
                    released});
  for (const auto* resource :
       {&client::resources::kServices, &client::resources::kPersistentVolumeClaims}) {
    ctx.informers.informer(*resource).add_handler(
        {nullptr,
         [=](const client::ObjectPtr& old, const client::ObjectPtr& now) {
           if (api::member(*old, "spec") != api::member(*now, "spec")) released(now);
         },
         released});
  }
}

void ResourceQuotaController::enqueue_quotas_in(const std::string& ns) {
  for (const auto& q : quotas_.in_namespace(ns)) enqueue(client::key_of(*q));
}

Result<std::string> ResourceQuotaController::preferred_version(const std::string& group) {
  if (group.empty()) return std::string("v1");
  {
    std::lock_guard lock(mu_);
    if (auto it = versions_.find(group); it != versions_.end()) return it->second;
  }
  ASSIGN_OR_RETURN(client::Reply reply, ctx_.client.request("GET", "/apis/" + group));
  if (reply.status != 200) return client::status_of(reply);
  json doc = json::parse(reply.body, nullptr, false);
  std::string version = api::text(api::member(doc, "preferredVersion"), "version");
  if (version.empty()) return error(Code::kNotFound, "no preferred version for group " + group);
  std::lock_guard lock(mu_);
  versions_[group] = version;
  return version;
}

Status ResourceQuotaController::reconcile(const std::string& key) {
  auto quota = quotas_.get(key);
  if (!quota || being_deleted(*quota)) return Status::ok();
  // Recounted every sync period whatever happens, for what no informer here watches.
  enqueue_after(key, sync_period_);
  const std::string& ns = namespace_of(*quota);
  Status failed;
  api::ResourceList used = api::quota_used(*quota, [&](const api::GroupResource& gr) {
    std::vector<json> objects;
    if (!failed.is_ok()) return objects;
    auto version = preferred_version(gr.first);
    if (!version.is_ok()) {
      // A resource the API does not serve holds nothing.
      if (version.status().code() != Code::kNotFound) failed = version.status();
      return objects;
    }
    client::ResourceId resource{gr.first, *version, gr.second, true};
    auto listed = client::list(ctx_.client, resource, ns);
    if (!listed.is_ok()) {
      if (listed.status().code() != Code::kNotFound) failed = listed.status();
      return objects;
    }
    for (auto& item : (*listed)["items"]) objects.push_back(std::move(item));
    return objects;
  });
  // A partial count would hand out quota that is in use: retry instead.
  RETURN_IF_ERROR(failed);
  json status = {
      {"hard", api::to_json(api::resource_list(api::member(api::member(*quota, "spec"), "hard")))},
      {"used", api::to_json(used)}};
  if (status == api::member(*quota, "status")) return Status::ok();
  json updated = *quota;
  updated["status"] = std::move(status);
  auto written = client::update(ctx_.client, client::resources::kResourceQuotas, updated, "status");
  if (!written.is_ok() && written.status().code() == Code::kNotFound) return Status::ok();
  return written.status();
}

}  // namespace k3c::controllers
