#include "roles/controllers/volume/pv_binder_controller.h"

#include "api/json_fields.h"
#include "roles/controllers/volume/binder_math.h"

namespace k3c::controllers {
namespace {

constexpr const char* kBinderSource = "persistentvolume-controller";  // upstream's event source
constexpr const char* kBindCompleted = "pv.kubernetes.io/bind-completed";
constexpr const char* kBoundByController = "pv.kubernetes.io/bound-by-controller";
constexpr const char* kSelectedNode = "volume.kubernetes.io/selected-node";
constexpr std::chrono::seconds kResync{15};

const json& annotations_of(const json& o) {
  return api::member(api::member(o, "metadata"), "annotations");
}

std::string volume_phase(const json& o) { return api::text(api::member(o, "status"), "phase"); }

}  // namespace

PvBinderController::PvBinderController(ControllerContext& ctx)
    : Controller("persistentvolume-binder"),
      ctx_(ctx),
      volumes_(ctx.informers.informer(client::resources::kPersistentVolumes)),
      claims_(ctx.informers.informer(client::resources::kPersistentVolumeClaims)),
      classes_(ctx.informers.informer(client::resources::kStorageClasses)) {
  auto claim_changed = [this](const client::ObjectPtr& c) {
    enqueue("claim:" + client::key_of(*c));
  };
  claims_.add_handler({claim_changed, [=](auto&, auto& c) { claim_changed(c); },
                       [this](const client::ObjectPtr& c) {
                         // Its volume may now be released.
                         const std::string volume =
                             api::text(api::member(*c, "spec"), "volumeName");
                         if (!volume.empty()) enqueue("volume:" + volume);
                       }});
  auto volume_changed = [this](const client::ObjectPtr& v) {
    enqueue("volume:" + name_of(*v));
    const json& ref = api::member(api::member(*v, "spec"), "claimRef");
    if (ref.is_object()) {
      enqueue("claim:" + api::text(ref, "namespace") + "/" + api::text(ref, "name"));
    } else {
      enqueue_unbound_claims();  // a volume to bind to
    }
  };
  volumes_.add_handler({volume_changed, [=](auto&, auto& v) { volume_changed(v); },
                        [this](const client::ObjectPtr& v) {
                          const json& ref = api::member(api::member(*v, "spec"), "claimRef");
                          if (ref.is_object()) {
                            enqueue("claim:" + api::text(ref, "namespace") + "/" +
                                    api::text(ref, "name"));
                          }
                        }});
}

void PvBinderController::enqueue_unbound_claims() {
  for (const auto& c : claims_.list()) {
    if (api::text(api::member(*c, "spec"), "volumeName").empty()) {
      enqueue("claim:" + client::key_of(*c));
    }
  }
}

Status PvBinderController::reconcile(const std::string& key) {
  if (key.rfind("claim:", 0) == 0) return sync_claim(key.substr(6));
  if (key.rfind("volume:", 0) == 0) return sync_volume(key.substr(7));
  return Status::ok();
}

Status PvBinderController::set_phase(const json& object, const client::ResourceId& resource,
                                     const std::string& phase, const std::string& message) {
  const json& status = api::member(object, "status");
  if (volume_phase(object) == phase && api::text(status, "message") == message) return Status::ok();
  json updated = object;
  updated["status"]["phase"] = phase;
  if (message.empty()) {
    updated["status"].erase("message");
  } else {
    updated["status"]["message"] = message;
  }
  auto written = client::update(ctx_.client, resource, updated, "status");
  if (!written.is_ok() && written.status().code() == Code::kNotFound) return Status::ok();
  return written.status();
}

Status PvBinderController::sync_claim(const std::string& key) {
  auto claim = claims_.get(key);
  if (!claim || being_deleted(*claim)) return Status::ok();
  const std::string volume_name = api::text(api::member(*claim, "spec"), "volumeName");
  const bool completed = api::text(annotations_of(*claim), kBindCompleted) == "yes";
  if (volume_name.empty()) {
    enqueue_after("claim:" + key, kResync);  // volumes may appear
    const std::string class_name = storage_class_of(*claim);
    client::ObjectPtr storage_class = class_name.empty() ? nullptr : classes_.get(class_name);
    if (storage_class && api::text(*storage_class, "volumeBindingMode") == "WaitForFirstConsumer" &&
        api::text(annotations_of(*claim), kSelectedNode).empty()) {
      ctx_.events.record(*claim, "Normal", "WaitForFirstConsumer",
                         "waiting for first consumer to be created before binding", kBinderSource);
      return set_phase(*claim, client::resources::kPersistentVolumeClaims, "Pending");
    }
    std::vector<client::ObjectPtr> volumes = volumes_.list();
    std::vector<const json*> views;
    for (const auto& v : volumes) views.push_back(v.get());
    const json* match = matching_volume(*claim, views);
    if (match) return bind(*match, *claim);
    const std::string provisioner = storage_class ? api::text(*storage_class, "provisioner") : "";
    if (!provisioner.empty() && provisioner != "kubernetes.io/no-provisioner") {
      ctx_.events.record(*claim, "Normal", "ExternalProvisioning",
                         "Waiting for a volume to be created either by the external provisioner '" +
                             provisioner +
                             "' or manually by the system administrator. If volume creation is "
                             "delayed, please verify that the provisioner is running and "
                             "correctly registered.",
                         kBinderSource);
    } else if (!class_name.empty() && !storage_class) {
      ctx_.events.record(*claim, "Warning", "ProvisioningFailed",
                         "storageclass.storage.k8s.io \"" + class_name + "\" not found",
                         kBinderSource);
    } else {
      ctx_.events.record(*claim, "Normal", "FailedBinding",
                         class_name.empty()
                             ? "no persistent volumes available for this claim and no storage "
                               "class is set"
                             : "no persistent volumes available for this claim",
                         kBinderSource);
    }
    return set_phase(*claim, client::resources::kPersistentVolumeClaims, "Pending");
  }
  auto volume = volumes_.get(volume_name);
  if (!volume) {
    if (!completed) return set_phase(*claim, client::resources::kPersistentVolumeClaims, "Pending");
    if (volume_phase(*claim) != "Lost") {
      ctx_.events.record(*claim, "Warning", "ClaimLost",
                         "Bound claim has lost its PersistentVolume. Data on the volume is lost!",
                         kBinderSource);
    }
    return set_phase(*claim, client::resources::kPersistentVolumeClaims, "Lost");
  }
  const json& ref = api::member(api::member(*volume, "spec"), "claimRef");
  if (!ref.is_object() || volume_bound_to(*volume, *claim)) return bind(*volume, *claim);
  if (completed) {
    if (volume_phase(*claim) != "Lost") {
      ctx_.events.record(*claim, "Warning", "ClaimMisbound",
                         "Two claims are bound to the same volume, this one is bound incorrectly",
                         kBinderSource);
    }
    return set_phase(*claim, client::resources::kPersistentVolumeClaims, "Lost");
  }
  ctx_.events.record(*claim, "Warning", "FailedBinding",
                     "volume \"" + volume_name + "\" already bound to a different claim.",
                     kBinderSource);
  return set_phase(*claim, client::resources::kPersistentVolumeClaims, "Pending");
}

Status PvBinderController::bind(json volume, json claim) {
  // 1. The volume names the claim (with its uid).
  const json& ref = api::member(api::member(volume, "spec"), "claimRef");
  if (api::text(ref, "uid") != uid_of(claim)) {
    const bool by_controller = !ref.is_object();
    volume["spec"]["claimRef"] = {{"kind", "PersistentVolumeClaim"},
                                  {"namespace", namespace_of(claim)},
                                  {"name", name_of(claim)},
                                  {"uid", uid_of(claim)},
                                  {"apiVersion", "v1"},
                                  {"resourceVersion", meta_str(claim, "resourceVersion")}};
    if (by_controller) volume["metadata"]["annotations"][kBoundByController] = "yes";
    ASSIGN_OR_RETURN(volume,
                     client::update(ctx_.client, client::resources::kPersistentVolumes, volume));
  }
  // 2. The volume is Bound.
  RETURN_IF_ERROR(set_phase(volume, client::resources::kPersistentVolumes, "Bound"));
  // 3. The claim names the volume.
  const std::string volume_name = name_of(volume);
  if (api::text(api::member(claim, "spec"), "volumeName") != volume_name ||
      api::text(annotations_of(claim), kBindCompleted) != "yes") {
    if (api::text(api::member(claim, "spec"), "volumeName").empty()) {
      claim["metadata"]["annotations"][kBoundByController] = "yes";
    }
    claim["spec"]["volumeName"] = volume_name;
    claim["metadata"]["annotations"][kBindCompleted] = "yes";
    ASSIGN_OR_RETURN(
        claim, client::update(ctx_.client, client::resources::kPersistentVolumeClaims, claim));
  }
  // 4. The claim's status says so.
  const json& vspec = api::member(volume, "spec");
  json status = api::member(claim, "status").is_object() ? claim["status"] : json::object();
  json wanted = status;
  wanted["phase"] = "Bound";
  wanted["accessModes"] = api::member(vspec, "accessModes");
  wanted["capacity"] = api::member(vspec, "capacity");
  if (wanted == status) return Status::ok();
  claim["status"] = std::move(wanted);
  auto written =
      client::update(ctx_.client, client::resources::kPersistentVolumeClaims, claim, "status");
  if (written.is_ok()) {
    ctx_.events.record(claim, "Normal", "Bound",
                       "Successfully bound to volume \"" + volume_name + "\"", kBinderSource);
  }
  return written.status();
}

Status PvBinderController::sync_volume(const std::string& name) {
  auto volume = volumes_.get(name);
  if (!volume || being_deleted(*volume)) return Status::ok();
  const json& spec = api::member(*volume, "spec");
  const json& ref = api::member(spec, "claimRef");
  if (!ref.is_object() || api::text(ref, "uid").empty()) {
    return set_phase(*volume, client::resources::kPersistentVolumes, "Available");
  }
  const std::string ns = api::text(ref, "namespace"), claim_name = api::text(ref, "name");
  client::ObjectPtr cached = claims_.get(ns + "/" + claim_name);
  json claim;
  if (cached) {
    claim = *cached;
  } else {
    // Not in the cache: ask the API before deciding the claim is gone.
    auto fresh =
        client::get(ctx_.client, client::resources::kPersistentVolumeClaims, ns, claim_name);
    if (!fresh.is_ok() && fresh.status().code() != Code::kNotFound) return fresh.status();
    if (fresh.is_ok()) claim = *fresh;
  }
  if (claim.is_object() && uid_of(claim) == api::text(ref, "uid")) {
    const std::string bound_to = api::text(api::member(claim, "spec"), "volumeName");
    if (bound_to == name) return set_phase(*volume, client::resources::kPersistentVolumes, "Bound");
    if (bound_to.empty()) {
      enqueue("claim:" + ns + "/" + claim_name);  // the binding is under way
      return Status::ok();
    }
    // The claim went to another volume: let go of it if we had taken it.
    if (api::text(annotations_of(*volume), kBoundByController) == "yes") {
      json updated = *volume;
      updated["spec"].erase("claimRef");
      updated["metadata"]["annotations"].erase(kBoundByController);
      auto written = client::update(ctx_.client, client::resources::kPersistentVolumes, updated);
      return written.status();
    }
  }
  // The claim is gone. A provisioner deletes what it provisioned; other volumes would need a
  // volume plugin.
  const std::string policy = api::text(spec, "persistentVolumeReclaimPolicy");
  const bool provisioned =
      !api::text(annotations_of(*volume), "pv.kubernetes.io/provisioned-by").empty();
  if ((policy == "Delete" && !provisioned) || policy == "Recycle") {
    const std::string message =
        "error getting " + std::string(policy == "Delete" ? "deleter" : "recycler") +
        " volume plugin for volume \"" + name + "\": no volume plugin matched";
    if (volume_phase(*volume) != "Failed") {
      ctx_.events.record(*volume, "Warning",
                         policy == "Delete" ? "VolumeFailedDelete" : "VolumeFailedRecycle", message,
                         kBinderSource);
    }
    return set_phase(*volume, client::resources::kPersistentVolumes, "Failed", message);
  }
  return set_phase(*volume, client::resources::kPersistentVolumes, "Released");
}

}  // namespace k3c::controllers
