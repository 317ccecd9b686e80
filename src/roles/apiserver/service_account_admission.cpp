// The ServiceAccount admission plugin for pods (see service_account_admission.h).
#include "roles/apiserver/service_account_admission.h"

#include <thread>

#include "api/json_fields.h"
#include "core/ids.h"

namespace k3c::apiserver {

using nlohmann::json;

namespace {

constexpr const char* kMountPath = "/var/run/secrets/kubernetes.io/serviceaccount";
constexpr const char* kDefaultAccount = "default";

ApiError refused(const std::string& name, const std::string& reason) {
  return admission_forbidden("", "pods", name, reason);
}

// The account as the cache has it now; if it is not there, read again after every
// acknowledged write, as upstream falls back from its informer to a direct GET. The
// `default` account is tried several times: its controller creates it right after the
// namespace appears, so a pod created at once may come before it.
Result<json> find_account(WatchCache& cache, const std::string& ns, const std::string& account,
                          const ServiceAccountLookup& lookup) {
  const std::string key = "/registry/serviceaccounts/" + ns + "/" + account;
  auto found = cache.get_or_catch_up(key);
  const int attempts = account == kDefaultAccount ? lookup.default_attempts : 1;
  for (int i = 1; !found.is_ok() && i < attempts; ++i) {
    if (found.status().code() != Code::kNotFound) break;
    std::this_thread::sleep_for(lookup.interval);
    found = cache.get(key, 0);
  }
  if (!found.is_ok()) {
    if (found.status().code() != Code::kNotFound) return found.status();
    return error(Code::kNotFound, "serviceaccount \"" + account + "\" not found");
  }
  json o = json::parse((*found)->json.text(), nullptr, false);
  if (!o.is_object()) return error(Code::kInternal, "stored serviceaccount is not JSON");
  return o;
}

// automountServiceAccountToken: the pod's setting wins, then the account's, then true.
bool automount(const json& account, const json& spec) {
  for (const json* o : {&spec, &account}) {
    if (auto a = o->find("automountServiceAccountToken"); a != o->end() && a->is_boolean())
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

void add_token_volume(json& spec) {
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

bool has_object(const json& o, const char* field) {
  auto it = o.find(field);
  return it != o.end() && it->is_object();
}

// Whether the pod refers to any secret, as upstream's VisitPodSecretNames finds them.
bool references_secrets(const json& spec) {
  auto pull = spec.find("imagePullSecrets");
  if (pull != spec.end() && pull->is_array() && !pull->empty()) return true;
  for (const char* list : {"containers", "initContainers", "ephemeralContainers"}) {
    for (const auto& c : api::member(spec, list)) {
      if (!c.is_object()) continue;
      for (const auto& from : api::member(c, "envFrom")) {
        if (from.is_object() && has_object(from, "secretRef")) return true;
      }
      for (const auto& env : api::member(c, "env")) {
        if (!env.is_object() || !has_object(env, "valueFrom")) continue;
        if (has_object(env["valueFrom"], "secretKeyRef")) return true;
      }
    }
  }
  for (const auto& v : api::member(spec, "volumes")) {
    if (!v.is_object()) continue;
    if (has_object(v, "secret") || has_object(v, "azureFile")) return true;
    for (const char* source :
         {"cephfs", "cinder", "flexVolume", "rbd", "scaleIO", "iscsi", "storageos"}) {
      if (has_object(v, source) && has_object(v[source], "secretRef")) return true;
    }
    if (has_object(v, "csi") && has_object(v["csi"], "nodePublishSecretRef")) return true;
    if (!has_object(v, "projected")) continue;
    for (const auto& s : api::member(v["projected"], "sources")) {
      if (s.is_object() && has_object(s, "secret")) return true;
    }
  }
  return false;
}

bool projects_token(const json& spec) {
  for (const auto& v : api::member(spec, "volumes")) {
    if (!v.is_object() || !has_object(v, "projected")) continue;
    for (const auto& s : api::member(v["projected"], "sources")) {
      if (s.is_object() && has_object(s, "serviceAccountToken")) return true;
    }
  }
  return false;
}

// A mirror pod mirrors a kubelet's static pod, which cannot use the API's accounts or secrets.
std::optional<ApiError> check_mirror_pod(const std::string& name, const json& spec) {
  if (!spec.value("serviceAccountName", "").empty())
    return refused(name, "a mirror pod may not reference service accounts");
  if (references_secrets(spec)) return refused(name, "a mirror pod may not reference secrets");
  if (projects_token(spec))
    return refused(name, "a mirror pod may not use ServiceAccountToken volume projections");
  return std::nullopt;
}

}  // namespace

std::optional<ApiError> admit_pod_service_account(WatchCache& cache, const std::string& ns,
                                                  const std::string& name, json& pod,
                                                  const ServiceAccountLookup& lookup) {
  json& spec = pod["spec"];
  if (!spec.is_object()) return std::nullopt;
  const json& annotations = api::member(api::member(pod, "metadata"), "annotations");
  if (annotations.is_object() && annotations.contains("kubernetes.io/config.mirror"))
    return check_mirror_pod(name, spec);
  std::string account = spec.value("serviceAccountName", "");
  if (account.empty()) account = spec.value("serviceAccount", "");
  if (account.empty()) account = kDefaultAccount;
  spec["serviceAccountName"] = account;
  spec["serviceAccount"] = account;  // the deprecated alias, kept equal as upstream does
  auto found = find_account(cache, ns, account, lookup);
  if (!found.is_ok()) {
    return refused(name, "error looking up service account " + ns + "/" + account + ": " +
                             found.status().message());
  }
  if (automount(*found, spec)) add_token_volume(spec);
  auto pull = spec.find("imagePullSecrets");
  auto account_pull = found->find("imagePullSecrets");
  if ((pull == spec.end() || !pull->is_array() || pull->empty()) && account_pull != found->end() &&
      account_pull->is_array() && !account_pull->empty()) {
    json names = json::array();
    for (const auto& ref : *account_pull) {
      if (ref.is_object()) names.push_back({{"name", ref.value("name", "")}});
    }
    spec["imagePullSecrets"] = std::move(names);
  }
  return std::nullopt;
}

}  // namespace k3c::apiserver
