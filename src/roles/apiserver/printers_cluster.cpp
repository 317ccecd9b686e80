// Printers of the cluster-level groups: rbac, certificates, coordination, storage, scheduling,
// node and admissionregistration, following upstream's v1.32 printers.
#include "roles/apiserver/printer_cells.h"

namespace k3c::apiserver::printers {
namespace {

// Users, groups and service accounts of a binding's subjects, each ", "-joined.
Cells binding_cells(const json& o, WallTime now) {
  std::vector<std::string> users, groups, sas;
  const json& subjects = at(o, {"subjects"});
  if (subjects.is_array()) {
    for (const auto& s : subjects) {
      std::string kind = str(s, {"kind"});
      if (kind == "ServiceAccount") sas.push_back(str(s, {"namespace"}) + "/" + str(s, {"name"}));
      if (kind == "User") users.push_back(str(s, {"name"}));
      if (kind == "Group") groups.push_back(str(s, {"name"}));
    }
  }
  return {name_of(o),         str(o, {"roleRef", "kind"}) + "/" + str(o, {"roleRef", "name"}),
          age_of(o, now),     join(users, ", "),
          join(groups, ", "), join(sas, ", ")};
}

std::vector<Column> binding_columns() {
  return {name_column(),
          text("Role", "The role granted."),
          age_column(),
          text("Users", "Users bound.", 1),
          text("Groups", "Groups bound.", 1),
          text("ServiceAccounts", "Service accounts bound.", 1)};
}

std::string csr_condition(const json& o) {
  bool approved = false, denied = false, failed = false;
  const json& conds = at(o, {"status", "conditions"});
  if (conds.is_array()) {
    for (const auto& c : conds) {
      std::string type = str(c, {"type"});
      approved |= type == "Approved";
      denied |= type == "Denied";
      failed |= type == "Failed";
    }
  }
  std::string status = denied ? "Denied" : approved ? "Approved" : "Pending";
  if (failed) status += ",Failed";
  if (!str(o, {"status", "certificate"}).empty()) status += ",Issued";
  return status;
}

Cells csr_cells(const json& o, WallTime now) {
  const json& seconds = at(o, {"spec", "expirationSeconds"});
  std::string duration = "<none>";
  if (seconds.is_number_integer())
    duration = human_duration(std::chrono::seconds(seconds.get<long long>()));
  return {name_of(o),
          age_of(o, now),
          str(o, {"spec", "signerName"}, "<none>"),
          str(o, {"spec", "username"}),
          duration,
          csr_condition(o)};
}

Cells lease_cells(const json& o, WallTime now) {
  return {name_of(o), str(o, {"spec", "holderIdentity"}), age_of(o, now)};
}

bool marked_default_class(const json& o) {
  for (const char* a : {"storageclass.kubernetes.io/is-default-class",
                        "storageclass.beta.kubernetes.io/is-default-class"}) {
    if (str(o, {"metadata", "annotations", a}) == "true") return true;
  }
  return false;
}

Cells storage_class_cells(const json& o, WallTime now) {
  return {name_of(o) + (marked_default_class(o) ? " (default)" : ""),
          str(o, {"provisioner"}),
          str(o, {"reclaimPolicy"}, "Delete"),
          str(o, {"volumeBindingMode"}, "Immediate"),
          flag(o, {"allowVolumeExpansion"}),
          age_of(o, now)};
}

Cells priority_class_cells(const json& o, WallTime now) {
  return {name_of(o), num(o, {"value"}), flag(o, {"globalDefault"}), age_of(o, now),
          str(o, {"preemptionPolicy"})};
}

Cells runtime_class_cells(const json& o, WallTime now) {
  return {name_of(o), str(o, {"handler"}), age_of(o, now)};
}

Cells volume_attachment_cells(const json& o, WallTime now) {
  return {name_of(o),
          str(o, {"spec", "attacher"}),
          str(o, {"spec", "source", "persistentVolumeName"}),
          str(o, {"spec", "nodeName"}),
          flag(o, {"status", "attached"}),
          age_of(o, now)};
}

Cells csi_node_cells(const json& o, WallTime now) {
  return {name_of(o), count(o, {"spec", "drivers"}), age_of(o, now)};
}

Cells csi_driver_cells(const json& o, WallTime now) {
  std::vector<std::string> modes, audiences;
  const json& ms = at(o, {"spec", "volumeLifecycleModes"});
  if (ms.is_array())
    for (const auto& m : ms) modes.push_back(m.is_string() ? m.get<std::string>() : "");
  std::string tokens = "<unset>";
  const json& trs = at(o, {"spec", "tokenRequests"});
  if (trs.is_array()) {
    for (const auto& t : trs) audiences.push_back(str(t, {"audience"}));
    tokens = join(audiences);
  }
  return {name_of(o),
          flag(o, {"spec", "attachRequired"}, true),
          flag(o, {"spec", "podInfoOnMount"}),
          flag(o, {"spec", "storageCapacity"}),
          tokens,
          flag(o, {"spec", "requiresRepublish"}),
          modes.empty() ? "<none>" : join(modes),
          age_of(o, now)};
}

Cells csi_storage_capacity_cells(const json& o, WallTime) {
  const json& capacity = at(o, {"capacity"});
  return {name_of(o), str(o, {"storageClassName"}),
          capacity.is_null() ? "<unset>" : quantity(capacity)};
}

Cells webhook_configuration_cells(const json& o, WallTime now) {
  return {name_of(o), count(o, {"webhooks"}), age_of(o, now)};
}

Cells admission_policy_cells(const json& o, WallTime now) {
  std::string param_kind = "<unset>";
  if (at(o, {"spec", "paramKind"}).is_object())
    param_kind =
        str(o, {"spec", "paramKind", "apiVersion"}) + "/" + str(o, {"spec", "paramKind", "kind"});
  return {name_of(o), count(o, {"spec", "validations"}), param_kind, age_of(o, now)};
}

// A LabelSelector as Go's generated String() prints it (upstream prints a binding's paramRef
// selector that way).
std::string go_selector_string(const json& selector) {
  std::string labels = "map[string]string{";
  const json& ml = at(selector, {"matchLabels"});
  if (ml.is_object())
    for (auto& [k, v] : ml.items())
      labels += k + ": " + (v.is_string() ? v.get<std::string>() : "") + ",";
  labels += "}";
  std::string exprs = "[]LabelSelectorRequirement{";
  const json& me = at(selector, {"matchExpressions"});
  if (me.is_array()) {
    for (const auto& e : me) {
      std::vector<std::string> values;
      const json& vs = at(e, {"values"});
      if (vs.is_array())
        for (const auto& v : vs) values.push_back(v.is_string() ? v.get<std::string>() : "");
      exprs += "LabelSelectorRequirement{Key:" + str(e, {"key"}) +
               ",Operator:" + str(e, {"operator"}) + ",Values:[" + join(values, " ") + "],},";
    }
  }
  exprs += "}";
  return "&LabelSelector{MatchLabels:" + labels + ",MatchExpressions:" + exprs + ",}";
}

Cells admission_binding_cells(const json& o, WallTime now) {
  std::string param = "<unset>";
  const json& ref = at(o, {"spec", "paramRef"});
  if (ref.is_object()) {
    if (!str(ref, {"name"}).empty()) {
      // A name without a namespace may be cluster-scoped or any namespace: upstream prints "*".
      std::string ns = str(ref, {"namespace"});
      param = (ns.empty() ? "*" : ns) + "/" + str(ref, {"name"});
    } else if (at(ref, {"selector"}).is_object()) {
      param = go_selector_string(at(ref, {"selector"}));
    }
  }
  return {name_of(o), str(o, {"spec", "policyName"}), param, age_of(o, now)};
}

}  // namespace

void add_cluster_printers(PrinterMap& m) {
  m[{"rbac.authorization.k8s.io", "RoleBinding"}] = {binding_columns(), binding_cells};
  m[{"rbac.authorization.k8s.io", "ClusterRoleBinding"}] = {binding_columns(), binding_cells};
  m[{"certificates.k8s.io", "CertificateSigningRequest"}] = {
      {name_column(), age_column(), text("SignerName", "The signer asked to sign."),
       text("Requestor", "The user who made the request."),
       text("RequestedDuration", "Requested validity of the certificate."),
       text("Condition", "Approved, Denied or Pending; Failed and Issued when so.")},
      csr_cells};
  m[{"coordination.k8s.io", "Lease"}] = {
      {name_column(), text("Holder", "Current holder of the lease."), age_column()}, lease_cells};
  m[{"storage.k8s.io", "StorageClass"}] = {
      {name_column(), text("Provisioner", "The volume provisioner."),
       text("ReclaimPolicy", "Reclaim policy of provisioned volumes."),
       text("VolumeBindingMode", "When volumes are bound and provisioned."),
       text("AllowVolumeExpansion", "Whether volumes may grow."), age_column()},
      storage_class_cells};
  m[{"storage.k8s.io", "VolumeAttachment"}] = {
      {name_column(),
       {"Attacher", "string", "name", "The attaching volume driver.", 0},
       text("PV", "The persistent volume attached."),
       text("Node", "The node the volume is attached to."),
       boolean("Attached", "Whether the attach succeeded."),
       age_column()},
      volume_attachment_cells};
  m[{"storage.k8s.io", "CSINode"}] = {
      {name_column(), integer("Drivers", "CSI drivers registered on the node."), age_column()},
      csi_node_cells};
  m[{"storage.k8s.io", "CSIDriver"}] = {
      {name_column(), boolean("AttachRequired", "Whether volumes need an attach step."),
       boolean("PodInfoOnMount", "Whether mounts receive pod information."),
       boolean("StorageCapacity", "Whether the driver reports storage capacity."),
       text("TokenRequests", "Audiences of service account tokens passed on mount."),
       boolean("RequiresRepublish", "Whether mounts are republished periodically."),
       text("Modes", "Volume lifecycle modes."), age_column()},
      csi_driver_cells};
  m[{"storage.k8s.io", "CSIStorageCapacity"}] = {
      {name_column(), text("StorageClassName", "The storage class."),
       text("Capacity", "Available capacity.")},
      csi_storage_capacity_cells};
  m[{"scheduling.k8s.io", "PriorityClass"}] = {
      {name_column(), integer("Value", "The priority value."),
       boolean("Global-Default", "Whether pods without a class get this one."), age_column(),
       text("PreemptionPolicy", "Whether pods of the class preempt others.")},
      priority_class_cells};
  m[{"node.k8s.io", "RuntimeClass"}] = {
      {name_column(), text("Handler", "The runtime handler."), age_column()}, runtime_class_cells};
  for (const char* kind : {"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"}) {
    m[{"admissionregistration.k8s.io", kind}] = {
        {name_column(), integer("Webhooks", "Webhooks in the configuration."), age_column()},
        webhook_configuration_cells};
  }
  m[{"admissionregistration.k8s.io", "ValidatingAdmissionPolicy"}] = {
      {name_column(), integer("Validations", "Validation rules of the policy."),
       text("ParamKind", "Kind of the policy's parameters."), age_column()},
      admission_policy_cells};
  m[{"admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"}] = {
      {name_column(), text("PolicyName", "The bound policy."),
       text("ParamRef", "The parameter resource."), age_column()},
      admission_binding_cells};
}

}  // namespace k3c::apiserver::printers
