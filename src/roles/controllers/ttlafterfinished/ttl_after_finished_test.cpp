#include <catch2/catch.hpp>

#include "core/ids.h"
#include "roles/controllers/ttlafterfinished/ttl_after_finished_controller.h"

namespace k3c::controllers {
namespace {

using namespace std::chrono_literals;

TEST_CASE("TTL after finished: time left counts from the Complete or Failed transition") {
  auto now = *parse_rfc3339("2026-11-30T00:01:00Z");
  json job = {{"spec", {{"ttlSecondsAfterFinished", 100}}},
              {"status",
               {{"conditions",
                 {{{"type", "SuccessCriteriaMet"},
                   {"status", "True"},
                   {"lastTransitionTime", "2026-11-30T00:00:00Z"}}}}}}};
  CHECK_FALSE(TtlAfterFinishedController::time_left(job, now));  // not finished yet
  job["status"]["conditions"].push_back(
      {{"type", "Complete"}, {"status", "True"}, {"lastTransitionTime", "2026-11-30T00:00:30Z"}});
  CHECK(TtlAfterFinishedController::time_left(job, now) == 70s);
  job["status"]["conditions"][1]["type"] = "Failed";
  CHECK(TtlAfterFinishedController::time_left(job, now + 80s) == -10s);
  job["metadata"]["deletionTimestamp"] = "2026-11-30T00:02:00Z";
  CHECK_FALSE(TtlAfterFinishedController::time_left(job, now));
  job["metadata"].erase("deletionTimestamp");
  job["spec"].erase("ttlSecondsAfterFinished");
  CHECK_FALSE(TtlAfterFinishedController::time_left(job, now));
  CHECK_FALSE(TtlAfterFinishedController::time_left(json("odd"), now));
}

}  // namespace
}  // namespace k3c::controllers
