// TTL after finished (upstream's ttlafterfinished controller): a Job with
// spec.ttlSecondsAfterFinished is deleted that many seconds after it finished (the
// lastTransitionTime of its Complete or Failed condition), with Foreground propagation as
// upstream (the Job goes once its pods are gone). A Job not yet due is looked at again when it
// is; before deleting, a fresh read confirms the TTL still says so (it may have changed).
#pragma once

#include "roles/controllers/common/context.h"
#include "roles/controllers/common/controller.h"

namespace k3c::controllers {

class TtlAfterFinishedController final : public Controller {
 public:
  explicit TtlAfterFinishedController(ControllerContext& ctx);
  Status reconcile(const std::string& key) override;

  // Time left before `job` may be deleted (<= 0: due); nullopt when it has no TTL, is not
  // finished, or is already being deleted.
  static std::optional<std::chrono::nanoseconds> time_left(
      const json& job, std::chrono::system_clock::time_point now);

 private:
  ControllerContext& ctx_;
  client::Informer& jobs_;
};

}  // namespace k3c::controllers
