#include "roles/controllers/volume/local_path_provisioner.h"

#include <filesystem>

#include "api/json_fields.h"
#include "roles/controllers/volume/binder_math.h"

namespace k3c::controllers {
namespace {

constexpr const char* kProvisionedBy = "pv.kubernetes.io/provisioned-by";
constexpr const char* kProvisionerSelectedNode = "volume.kubernetes.io/selected-node";

const json& provisioner_annotations(const json& o) {
  return api::member(api::member(o, "metadata"), "annotations");
}

// The node a volume's required node affinity names (kubernetes.io/hostname In [node]).
std::string volume_node(const json& volume) {
  const json& terms =
      api::member(api::member(api::member(api::member(volume, "spec"), "nodeAffinity"), "required"),
                  "nodeSelectorTerms");
  for (const json& term : terms) {
    for (const json& e : api::member(term, "matchExpressions")) {
      const json& values = api::member(e, "values");
      if (api::text(e, "key") == "kubernetes.io/hostname" && values.is_array() &&
          values.size() == 1 && values[0].is_string()) {
        return values[0].get<std::string>();
      }
    }
  }
  return "";
}

}  // namespace

LocalPathProvisioner::LocalPathProvisioner(ControllerContext& ctx,
                                           const ControllerManagerSettings& settings)
    : Controller("local-path-provisioner"),
      ctx_(ctx),
      storage_dir_(settings.local_storage_dir),
      local_node_(settings.local_node_name),
      claims_(ctx.informers.informer(client::resources::kPersistentVolumeClaims)),
      volumes_(ctx.informers.informer(client::resources::kPersistentVolumes)),
      classes_(ctx.informers.informer(client::resources::kStorageClasses)) {
  enqueue("storageclass");
  auto claim = [this](const client::ObjectPtr& c) { enqueue("claim:" + client::key_of(*c)); };
  claims_.add_handler({claim, [=](auto&, auto& c) { claim(c); }, nullptr});
  auto volume = [this](const client::ObjectPtr& v) { enqueue("volume:" + name_of(*v)); };
  volumes_.add_handler({volume, [=](auto&, auto& v) { volume(v); }, nullptr});
}

Status LocalPathProvisioner::reconcile(const std::string& key) {
  if (key == "storageclass") return ensure_class();
  if (key.rfind("claim:", 0) == 0) return provision(key.substr(6));
  if (key.rfind("volume:", 0) == 0) return reclaim(key.substr(7));
  return Status::ok();
}

Status LocalPathProvisioner::ensure_class() {
  if (classes_.get(kClassName)) return Status::ok();
  json storage_class = {
      {"apiVersion", "storage.k8s.io/v1"},
      {"kind", "StorageClass"},
      {"metadata",
       {{"name", kClassName},
        {"annotations", {{"storageclass.kubernetes.io/is-default-class", "true"}}}}},
      {"provisioner", kProvisioner},
      {"volumeBindingMode", "WaitForFirstConsumer"},
      {"reclaimPolicy", "Delete"}};
  auto created = client::create(ctx_.client, client::resources::kStorageClasses, "", storage_class);
  if (!created.is_ok() && created.status().code() != Code::kAlreadyExists) return created.status();
  return Status::ok();
}

client::ObjectPtr LocalPathProvisioner::our_class(const json& claim) const {
  const std::string class_name = storage_class_of(claim);
  if (class_name.empty()) return nullptr;
  auto storage_class = classes_.get(class_name);
  return storage_class && api::text(*storage_class, "provisioner") == kProvisioner ? storage_class
                                                                                   : nullptr;
}

Status LocalPathProvisioner::provision(const std::string& claim_key) {
  auto claim = claims_.get(claim_key);
  if (!claim || being_deleted(*claim)) return Status::ok();
  const client::ObjectPtr storage_class = our_class(*claim);
  if (!storage_class) return Status::ok();
  const std::string class_name = name_of(*storage_class);
  const json& spec = api::member(*claim, "spec");
  const std::string node = api::text(provisioner_annotations(*claim), kProvisionerSelectedNode);
  if (!api::text(spec, "volumeName").empty() || node.empty()) return Status::ok();
  const std::string name = "pvc-" + uid_of(*claim);
  if (volumes_.get(name)) return Status::ok();  // made already; the binder takes over
  const std::string policy = api::text(*storage_class, "reclaimPolicy");
  const std::string path =
      storage_dir_ + "/" + name + "_" + namespace_of(*claim) + "_" + name_of(*claim);
  const std::string mode = api::text(spec, "volumeMode");
  json volume = {
      {"apiVersion", "v1"},
      {"kind", "PersistentVolume"},
      {"metadata", {{"name", name}, {"annotations", {{kProvisionedBy, kProvisioner}}}}},
      {"spec",
       {{"capacity",
         {{"storage",
           api::member(api::member(api::member(spec, "resources"), "requests"), "storage")}}},
        {"accessModes", api::member(spec, "accessModes")},
        {"persistentVolumeReclaimPolicy", policy.empty() ? "Delete" : policy},
        {"storageClassName", class_name},
        {"volumeMode", mode.empty() ? "Filesystem" : mode},
        {"claimRef",
         {{"apiVersion", "v1"},
          {"kind", "PersistentVolumeClaim"},
          {"namespace", namespace_of(*claim)},
          {"name", name_of(*claim)},
          {"uid", uid_of(*claim)},
          {"resourceVersion", meta_str(*claim, "resourceVersion")}}},
        {"hostPath", {{"path", path}, {"type", "DirectoryOrCreate"}}}}}};
  json expression = {
      {"key", "kubernetes.io/hostname"}, {"operator", "In"}, {"values", json::array({node})}};
  json term = {{"matchExpressions", json::array({expression})}};
  volume["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"] = json::array({term});
  ctx_.events.record(*claim, "Normal", "Provisioning",
                     "External provisioner is provisioning volume for claim \"" + claim_key + "\"",
                     kProvisioner);
  auto created = client::create(ctx_.client, client::resources::kPersistentVolumes, "", volume);
  if (!created.is_ok() && created.status().code() != Code::kAlreadyExists) {
    ctx_.events.record(*claim, "Warning", "ProvisioningFailed",
                       "failed to provision volume with StorageClass \"" + class_name +
                           "\": " + created.status().message(),
                       kProvisioner);
    return created.status();
  }
  ctx_.events.record(*claim, "Normal", "ProvisioningSucceeded",
                     "Successfully provisioned volume " + name, kProvisioner);
  return Status::ok();
}

Status LocalPathProvisioner::reclaim(const std::string& volume_name) {
  auto volume = volumes_.get(volume_name);
  if (!volume || being_deleted(*volume)) return Status::ok();
  if (api::text(provisioner_annotations(*volume), kProvisionedBy) != kProvisioner)
    return Status::ok();
  const json& spec = api::member(*volume, "spec");
  if (api::text(api::member(*volume, "status"), "phase") != "Released" ||
      api::text(spec, "persistentVolumeReclaimPolicy") != "Delete") {
    return Status::ok();
  }
  const std::string node = volume_node(*volume);
  if (node != local_node_) {
    ctx_.events.record(*volume, "Warning", "VolumeFailedDelete",
                       "the volume's data is on node " + node +
                           ", where k3c cannot remove it until agents do (not built yet)",
                       kProvisioner);
    return Status::ok();
  }
  // Only ever a directory this provisioner made: a direct child of the storage directory.
  const std::filesystem::path path = api::text(api::member(spec, "hostPath"), "path");
  if (!storage_dir_.empty() && path.parent_path() == std::filesystem::path(storage_dir_) &&
      path.filename().string().rfind(volume_name + "_", 0) == 0) {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
    if (ec) return error(Code::kInternal, "removing " + path.string() + ": " + ec.message());
  }
  client::DeleteOptions options;
  options.precondition_uid = uid_of(*volume);
  Status removed =
      client::remove(ctx_.client, client::resources::kPersistentVolumes, "", volume_name, options);
  return removed.code() == Code::kNotFound ? Status::ok() : removed;
}

}  // namespace k3c::controllers
