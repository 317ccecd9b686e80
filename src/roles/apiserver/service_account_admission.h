// The ServiceAccount admission plugin for pods (upstream's, on create): a pod without
// spec.serviceAccountName runs as `default`; the account must exist, or the pod is refused
// (403, `pods "x" is forbidden: error looking up service account default/bot: serviceaccount
// "bot" not found`); unless automountServiceAccountToken is false (on the pod, else on the
// account) the pod gets the projected `kube-api-access-<suffix>` volume (a bound token, the
// cluster CA from kube-root-ca.crt, the namespace) mounted read-only at
// /var/run/secrets/kubernetes.io/serviceaccount in every container and init container; a pod
// without imagePullSecrets gets the account's.
//
// Mirror pods (annotation kubernetes.io/config.mirror, a kubelet's static pods) are left as
// they are, and refused if they name an account, a secret or a token projection.
//
// Thread-safety: from any thread. A missing `default` account is looked up again for a
// while (the serviceaccount controller creates it right after its namespace appears), so
// the call may block the calling thread (an HTTP worker, or an in-process client's caller)
// for up to ServiceAccountLookup's bound; never a network thread.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "roles/apiserver/api_errors.h"
#include "roles/apiserver/watch_cache.h"

namespace k3c::apiserver {

// How a missing account is looked for, as upstream: the `default` account up to 10 times
// (upstream waits a random 100-199 ms between tries), any other once.
struct ServiceAccountLookup {
  int default_attempts = 10;
  std::chrono::milliseconds interval{150};
};

// `name` is the pod's name as admission sees it: its generateName when it has no name yet.
std::optional<ApiError> admit_pod_service_account(WatchCache& cache, const std::string& ns,
                                                  const std::string& name, nlohmann::json& pod,
                                                  const ServiceAccountLookup& lookup = {});

}  // namespace k3c::apiserver
