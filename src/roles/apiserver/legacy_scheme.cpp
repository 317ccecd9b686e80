// The legacy scheme's registrations (see legacy_scheme.h).
#include "roles/apiserver/legacy_scheme.h"

#include <algorithm>
#include <initializer_list>
#include <iterator>

namespace k3c::apiserver {
namespace {

struct Registered {
  std::string_view group;
  std::string_view version;
  std::initializer_list<std::string_view> kinds;
};

// The group-versions a v1.32 kube-apiserver registers in its legacy scheme that k3c does not
// serve (off by default upstream, or groups k3c leaves out), with the kinds each registers
// besides Lists and options. From each group's install package and its versions' register.go.
const Registered kUnserved[] = {
    {"apps",
     "v1beta1",
     {"Deployment", "DeploymentRollback", "Scale", "StatefulSet", "ControllerRevision"}},
    {"apps",
     "v1beta2",
     {"Deployment", "Scale", "StatefulSet", "DaemonSet", "ReplicaSet", "ControllerRevision"}},
    {"extensions",
     "v1beta1",
     {"Deployment", "DeploymentRollback", "Scale", "DaemonSet", "Ingress", "ReplicaSet",
      "NetworkPolicy"}},
    {"batch", "v1beta1", {"CronJob", "JobTemplate"}},
    {"autoscaling", "v2beta1", {"HorizontalPodAutoscaler"}},
    {"autoscaling", "v2beta2", {"HorizontalPodAutoscaler"}},
    {"policy", "v1beta1", {"PodDisruptionBudget", "Eviction"}},
    {"events.k8s.io", "v1beta1", {"Event"}},
    {"discovery.k8s.io", "v1beta1", {"EndpointSlice"}},
    {"networking.k8s.io", "v1beta1", {"Ingress", "IngressClass", "IPAddress", "ServiceCIDR"}},
    {"networking.k8s.io", "v1alpha1", {"IPAddress", "ServiceCIDR"}},
    {"node.k8s.io", "v1beta1", {"RuntimeClass"}},
    {"node.k8s.io", "v1alpha1", {"RuntimeClass"}},
    {"scheduling.k8s.io", "v1beta1", {"PriorityClass"}},
    {"scheduling.k8s.io", "v1alpha1", {"PriorityClass"}},
    {"storage.k8s.io",
     "v1beta1",
     {"StorageClass", "VolumeAttachment", "CSIDriver", "CSINode", "CSIStorageCapacity",
      "VolumeAttributesClass"}},
    {"storage.k8s.io",
     "v1alpha1",
     {"VolumeAttachment", "CSIStorageCapacity", "VolumeAttributesClass"}},
    {"storagemigration.k8s.io", "v1alpha1", {"StorageVersionMigration"}},
    {"rbac.authorization.k8s.io",
     "v1beta1",
     {"Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"}},
    {"rbac.authorization.k8s.io",
     "v1alpha1",
     {"Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"}},
    {"certificates.k8s.io", "v1beta1", {"CertificateSigningRequest"}},
    {"certificates.k8s.io", "v1alpha1", {"ClusterTrustBundle"}},
    {"coordination.k8s.io", "v1beta1", {"Lease"}},
    {"coordination.k8s.io", "v1alpha2", {"LeaseCandidate"}},
    {"admissionregistration.k8s.io",
     "v1beta1",
     {"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "ValidatingAdmissionPolicy",
      "ValidatingAdmissionPolicyBinding"}},
    {"admissionregistration.k8s.io",
     "v1alpha1",
     {"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "MutatingAdmissionPolicy",
      "MutatingAdmissionPolicyBinding"}},
    {"authentication.k8s.io", "v1beta1", {"TokenReview", "SelfSubjectReview"}},
    {"authentication.k8s.io", "v1alpha1", {"SelfSubjectReview"}},
    {"authorization.k8s.io",
     "v1beta1",
     {"SubjectAccessReview", "SelfSubjectAccessReview", "LocalSubjectAccessReview",
      "SelfSubjectRulesReview"}},
    {"flowcontrol.apiserver.k8s.io", "v1", {"FlowSchema", "PriorityLevelConfiguration"}},
    {"flowcontrol.apiserver.k8s.io", "v1beta3", {"FlowSchema", "PriorityLevelConfiguration"}},
    {"flowcontrol.apiserver.k8s.io", "v1beta2", {"FlowSchema", "PriorityLevelConfiguration"}},
    {"flowcontrol.apiserver.k8s.io", "v1beta1", {"FlowSchema", "PriorityLevelConfiguration"}},
    {"internal.apiserver.k8s.io", "v1alpha1", {"StorageVersion"}},
    {"imagepolicy.k8s.io", "v1alpha1", {"ImageReview"}},
    {"resource.k8s.io",
     "v1beta1",
     {"DeviceClass", "ResourceClaim", "ResourceClaimTemplate", "ResourceSlice"}},
    {"resource.k8s.io",
     "v1alpha3",
     {"DeviceClass", "ResourceClaim", "ResourceClaimTemplate", "ResourceSlice",
      "PodSchedulingContext"}},
    // Kinds registered in a served version without a resource of their own.
    {"apps", "v1", {"Scale"}},
    {"autoscaling", "v1", {"Scale"}},
    {"policy", "v1", {"Eviction"}},
    {"",
     "v1",
     {"Binding", "Status", "APIVersions", "APIGroupList", "APIGroup", "APIResourceList", "List",
      "PodLogOptions", "PodAttachOptions", "PodExecOptions", "PodPortForwardOptions",
      "PodProxyOptions", "NodeProxyOptions", "ServiceProxyOptions", "PodStatusResult",
      "RangeAllocation", "SerializedReference"}},
};

// What metav1.AddToGroupVersion registers in every group-version.
constexpr std::string_view kOptionKinds[] = {"ListOptions",   "GetOptions",    "DeleteOptions",
                                             "CreateOptions", "UpdateOptions", "PatchOptions",
                                             "WatchEvent"};

bool in_legacy_group(std::string_view group) { return group != "apiextensions.k8s.io"; }

const Registered* unserved(std::string_view group, std::string_view version) {
  for (const auto& r : kUnserved) {
    if (r.group == group && r.version == version) return &r;
  }
  return nullptr;
}

bool served_version(const api::ResourceRegistry& served, std::string_view group,
                    std::string_view version) {
  const api::ApiGroup* g = served.group(group);
  return g && std::find(g->versions.begin(), g->versions.end(), version) != g->versions.end();
}

// A kind with a resource (or table entry) of its own in group/version, not a List.
bool registers_kind(const api::ResourceRegistry& served, std::string_view group,
                    std::string_view version, std::string_view kind) {
  if (served.find_kind(group, version, kind)) return true;
  const Registered* r = unserved(group, version);
  return r && std::find(r->kinds.begin(), r->kinds.end(), kind) != r->kinds.end();
}

}  // namespace

bool decoded_by_legacy_scheme(const api::Resource& resource) {
  return in_legacy_group(resource.group);
}

bool legacy_scheme_knows(const api::ResourceRegistry& served, std::string_view group,
                         std::string_view version, std::string_view kind) {
  if (!in_legacy_group(group)) return false;
  if (!served_version(served, group, version) && !unserved(group, version)) return false;
  if (registers_kind(served, group, version, kind)) return true;
  if (std::find(std::begin(kOptionKinds), std::end(kOptionKinds), kind) != std::end(kOptionKinds))
    return true;
  constexpr std::string_view kList = "List";
  if (kind.size() > kList.size() && kind.ends_with(kList)) {
    std::string_view item = kind.substr(0, kind.size() - kList.size());
    if (const api::Resource* r = served.find_kind(group, version, item)) return r->has_verb("list");
    return registers_kind(served, group, version, item);
  }
  return false;
}

std::string internal_package(std::string_view group, std::string_view kind) {
  if (kind == "Scale") return "autoscaling";
  if (group == "extensions") {
    return kind == "Ingress" || kind == "NetworkPolicy" ? "networking" : "apps";
  }
  if (group.empty() || group == "events.k8s.io") return "core";
  if (group == "internal.apiserver.k8s.io") return "apiserverinternal";
  return std::string(group.substr(0, group.find('.')));
}

}  // namespace k3c::apiserver
