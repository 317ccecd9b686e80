// JobController's reconcile against the fake API: a job informer that lags behind the pods'
// must not make the controller run a succeeded index again.
#include "roles/controllers/job/job_controller.h"

#include <catch2/catch.hpp>

#include "client/client.h"
#include "roles/controllers/common/objects.h"
#include "roles/controllers/testing/controller_harness.h"

namespace k3c::controllers {
namespace {

using testing::ControllerHarness;

const char* kJobsPath = "/apis/batch/v1/namespaces/default/jobs";
const char* kJobPodsPath = "/api/v1/namespaces/default/pods";

json indexed_job(const std::string& name, int completions) {
  json labels = {{"job-name", name}};
  return {{"metadata", {{"name", name}, {"namespace", "default"}, {"generation", 1}}},
          {"spec",
           {{"completions", completions},
            {"parallelism", completions},
            {"completionMode", "Indexed"},
            {"backoffLimit", 6},
            {"selector", {{"matchLabels", labels}}},
            {"template",
             {{"metadata", {{"labels", labels}}},
              {"spec",
               {{"restartPolicy", "Never"},
                {"containers", json::array({{{"name", "c"}, {"image", "busybox"}}})}}}}}}}};
}

int job_pod_posts(const ControllerHarness& h, const std::string& path) {
  int n = 0;
  for (const auto& a : h.api.actions()) n += a.verb == "POST" && a.path == path;
  return n;
}

void finish_job_pod(ControllerHarness& h, const std::string& pod) {
  json patch = {{"status", {{"phase", "Succeeded"}}}};
  REQUIRE(client::patch_unanswered(h.client, client::resources::kPods, "default", pod,
                                   "application/merge-patch+json", patch)
              .is_ok());
}

std::string job_index_of(const json& pod) {
  return pod["metadata"]
      .value("annotations", json::object())
      .value("batch.kubernetes.io/job-completion-index", "");
}

TEST_CASE("a job whose cache lags behind its own status write does not run an index twice") {
  ControllerHarness h;
  h.api.seed(kJobsPath, indexed_job("idx", 3));
  client::Informer& pods = h.informers.informer(client::resources::kPods);
  JobController controller(h.ctx);
  auto running = h.start(controller);
  REQUIRE(running);
  REQUIRE(ControllerHarness::eventually([&] { return pods.list().size() == 3; }));
  std::map<std::string, std::string> by_index;  // index -> pod name
  for (const auto& p : pods.list()) by_index[job_index_of(*p)] = name_of(*p);
  REQUIRE(by_index.size() == 3);
  client::Informer& jobs = h.informers.informer(client::resources::kJobs);
  REQUIRE(ControllerHarness::eventually([&] {
    auto cached = jobs.get("default/idx");
    return cached && (*cached)["status"].value("active", 0) == 3;
  }));

  // The jobs' watch stalls: the controller's own status write stays out of its cache.
  h.api.hold("/apis/batch/v1/jobs");
  finish_job_pod(h, by_index["1"]);
  // Index 1 is written to the job's status, then the pod's tracking finalizer goes (and the
  // pods' cache shows it).
  std::string writes;
  for (const auto& a : h.api.actions())
    writes += a.verb + " " + a.path + " " + a.body.dump() + "\n";
  INFO("the writes:\n" << writes);
  REQUIRE(ControllerHarness::eventually([&] {
    auto cached = pods.get("default/" + by_index["1"]);
    return cached && pod_phase(*cached) == "Succeeded" &&
           !has_finalizer(*cached, "batch.kubernetes.io/job-tracking");
  }));
  CHECK(h.api.object(std::string(kJobsPath) + "/idx")["status"].value("completedIndexes", "") ==
        "1");
  // Another pod finishes: a pass over the stale job would see index 1 neither in the status nor
  // among pods it still counts, and start it again.
  finish_job_pod(h, by_index["0"]);
  REQUIRE(ControllerHarness::eventually([&] {
    auto cached = pods.get("default/" + by_index["0"]);
    return cached && pod_phase(*cached) == "Succeeded";
  }));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK(job_pod_posts(h, kJobPodsPath) == 3);

  h.api.release("/apis/batch/v1/jobs");
  REQUIRE(ControllerHarness::eventually([&] {
    return h.api.object(std::string(kJobsPath) + "/idx")["status"].value("completedIndexes", "") ==
           "0,1";  // two indexes are a list, three or more a range
  }));
  finish_job_pod(h, by_index["2"]);
  REQUIRE(ControllerHarness::eventually([&] {
    json job = h.api.object(std::string(kJobsPath) + "/idx");
    return condition_status(job, "Complete") == "True";
  }));
  json job = h.api.object(std::string(kJobsPath) + "/idx");
  CHECK(job["status"].value("completedIndexes", "") == "0-2");
  CHECK(job["status"].value("succeeded", 0) == 3);
  CHECK(job_pod_posts(h, kJobPodsPath) == 3);
}

}  // namespace
}  // namespace k3c::controllers
