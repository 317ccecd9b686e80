// The ServiceAccount admission plugin for pods (upstream's, on create): a pod without
// spec.serviceAccountName runs as `default`; unless automountServiceAccountToken is false
// (on the pod, else on the account) it gets the projected `kube-api-access-<suffix>` volume
// (a bound token, the cluster CA from kube-root-ca.crt, the namespace) mounted read-only at
// /var/run/secrets/kubernetes.io/serviceaccount in every container and init container.
//
// Deviation, for now: a pod naming an account that does not exist is admitted (upstream
// refuses it); API-only servers (--disable-controller-manager) have no default accounts.
#pragma once

#include <nlohmann/json.hpp>

#include "roles/apiserver/watch_cache.h"

namespace k3c::apiserver {

void admit_pod_service_account(WatchCache& cache, const std::string& ns,
                               nlohmann::json& pod);

}  // namespace k3c::apiserver
