// Makes a container's image present as upstream's kubelet does (images.EnsureImageExists):
// imagePullPolicy Never uses only what is present ("ErrImageNeverPull: Container image "x" is
// not present with pull policy of Never"); IfNotPresent pulls when missing; Always pulls every
// time a container starts. A failed pull is ErrImagePull and starts a backoff (10 s doubling
// to 5 min, per pod and image) during which the image is not pulled again
// (ImagePullBackOff). Pulls use the pod's imagePullSecrets (pull_secrets.h). A reference
// that cannot be parsed is InvalidImageName. Events: Pulling, Pulled, Failed, BackOff,
// ErrImageNeverPull, InspectFailed, FailedToRetrieveImagePullSecret.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "roles/kubelet/pods/container_statuses.h"
#include "roles/kubelet/pods/sync_context.h"

namespace k3c::kubelet {

struct ImageOutcome {
  std::optional<runtime::ImageSummary> image;  // set on success
  WaitingReason failure;                       // set otherwise
  std::optional<Clock::Duration> retry_after;  // when a retry could succeed
};

ImageOutcome ensure_image(const nlohmann::json& pod, const nlohmann::json& container,
                          const std::string& field_path, SyncContext& ctx);

// imagePullPolicy with upstream's default: Always for ":latest" or no tag, else IfNotPresent.
std::string image_pull_policy(const nlohmann::json& container);

}  // namespace k3c::kubelet
