#include "roles/apiserver/service_account_admission.h"

#include "core/ids.h"

namespace k3c::apiserver {

using nlohmann::json;

namespace {

constexpr const char* kMountPath = "/var/run/secrets/kubernetes.io/serviceaccount";

// automountServiceAccountToken: the pod's setting wins, then the account's, then true.
bool automount(WatchCache& cache, const std::string& ns, const std::string& account,
               const json& spec) {
  if (auto p = spec.find("automountServiceAccountToken"); p != spec.end() && p->is_boolean())
    return p->get<bool>();
  auto sa = cache.get("/registry/serviceaccounts/" + ns + "/" + account, -1);
  if (!sa.is_ok()) return true;
  json o = json::parse((*sa)->json, nullptr, false);
  if (o.is_object()) {
    if (auto a = o.find("automountServiceAccountToken"); a != o.end() && a->is_boolean())
      return a->get<bool>();
  }
  return true;
}

void mount_in(json& containers, const std::string& volume) {
  if (!containers.is_array()) return;
  for (auto& c : containers) {
    if (!c.is_object()) continue;
    json& mounts = c["volumeMounts"];
    if (!mounts.is_array()) mounts = json::array();
    bool taken = false;
    for (const auto& m : mounts) {
      if (m.is_object() && m.value("mountPath", "") == kMountPath) taken = true;
    }
    if (!taken) {
      mounts.push_back({{"name", volume}, {"readOnly", true}, {"mountPath", kMountPath}});
    }
  }
}

}  // namespace

void admit_pod_service_account(WatchCache& cache, const std::string& ns, json& pod) {
  json& spec = pod["spec"];
  if (!spec.is_object()) return;
  // Mirror pods (static pods of a kubelet) are left alone, as upstream.
  const json& annotations = pod["metadata"].value("annotations", json::object());
  if (annotations.is_object() && annotations.contains("kubernetes.io/config.mirror")) return;
  std::string account = spec.value("serviceAccountName", "");
  if (account.empty()) account = spec.value("serviceAccount", "");
  if (account.empty()) account = "default";
  spec["serviceAccountName"] = account;
  spec["serviceAccount"] = account;  // the deprecated alias, kept equal as upstream does
  if (!automount(cache, ns, account, spec)) return;
  json& volumes = spec["volumes"];
  if (!volumes.is_array()) volumes = json::array();
  std::string name = "kube-api-access-" + random_name_suffix();
  volumes.push_back(
      {{"name", name},
       {"projected",
        {{"defaultMode", 420},
         {"sources",
          json::array(
              {{{"serviceAccountToken", {{"expirationSeconds", 3607}, {"path", "token"}}}},
               {{"configMap",
                 {{"name", "kube-root-ca.crt"},
                  {"items", json::array({{{"key", "ca.crt"}, {"path", "ca.crt"}}})}}}},
               {{"downwardAPI",
                 {{"items", json::array({{{"path", "namespace"},
                                          {"fieldRef",
                                           {{"apiVersion", "v1"},
                                            {"fieldPath", "metadata.namespace"}}}}})}}}}})}}}});
  mount_in(spec["containers"], name);
  if (spec.contains("initContainers")) mount_in(spec["initContainers"], name);
}

}  // namespace k3c::apiserver
