#include "roles/controllers/job/job_math.h"

#include <catch2/catch.hpp>

#include "core/ids.h"
#include "roles/controllers/job/job_sync.h"

namespace k3c::controllers {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

WallTime job_at(const char* text) { return *parse_rfc3339(text); }

TEST_CASE("pod failure backoff: 10 s doubling, capped at 10 minutes") {
  struct Row {
    int failures;
    std::chrono::seconds wait;
  };
  for (Row r : {Row{0, 0s}, Row{1, 10s}, Row{2, 20s}, Row{3, 40s}, Row{6, 320s}, Row{7, 600s},
                Row{40, 600s}}) {
    INFO(r.failures);
    CHECK(pod_failure_backoff(r.failures) == r.wait);
  }
  WallTime failed = job_at("2026-11-30T00:00:00Z");
  CHECK(backoff_remaining(2, failed, failed + 5s) == 15s);
  CHECK(backoff_remaining(2, failed, failed + 25s) == 0s);
  CHECK(backoff_remaining(0, failed, failed) == 0s);
}

TEST_CASE("backoff record: failures since the last success") {
  WallTime t0 = job_at("2026-11-30T00:00:00Z");
  BackoffRecord r = next_backoff_record({}, {}, {t0, t0 + 5s});
  CHECK(r.failures == 2);
  CHECK(r.last_failure == t0 + 5s);
  r = next_backoff_record(r, {}, {t0 + 9s});
  CHECK(r.failures == 3);
  // A success resets; only the failures after it count.
  r = next_backoff_record(r, {t0 + 20s}, {t0 + 10s, t0 + 30s});
  CHECK(r.failures == 1);
  CHECK(r.last_failure == t0 + 30s);
  r = next_backoff_record(r, {t0 + 40s}, {});
  CHECK(r.failures == 0);
  CHECK_FALSE(r.last_failure);
}

TEST_CASE("a pod's finish time: containers, then Ready=False, then deletion, then creation") {
  json pod = {{"metadata", {{"creationTimestamp", "2026-11-30T00:00:00Z"}}},
              {"status",
               {{"containerStatuses",
                 {{{"state", {{"terminated", {{"finishedAt", "2026-11-30T00:00:09Z"}}}}}},
                  {{"state", {{"terminated", {{"finishedAt", "2026-11-30T00:00:07Z"}}}}}}}},
                {"conditions",
                 {{{"type", "Ready"},
                   {"status", "False"},
                   {"lastTransitionTime", "2026-11-30T00:00:05Z"}}}}}}};
  CHECK(pod_finish_time(pod) == job_at("2026-11-30T00:00:09Z"));
  pod["status"]["containerStatuses"][1]["state"] = {{"running", json::object()}};
  CHECK(pod_finish_time(pod) == job_at("2026-11-30T00:00:05Z"));
  pod["status"].erase("conditions");
  pod["metadata"]["deletionTimestamp"] = "2026-11-30T00:01:00Z";
  pod["metadata"]["deletionGracePeriodSeconds"] = 30;
  CHECK(pod_finish_time(pod) == job_at("2026-11-30T00:00:30Z"));
  pod["metadata"].erase("deletionTimestamp");
  CHECK(pod_finish_time(pod) == job_at("2026-11-30T00:00:00Z"));
}

TEST_CASE("completion index intervals, table") {
  struct Row {
    const char* text;
    int completions;
    std::vector<int> added;
    const char* formatted;
    int count;
  };
  const Row rows[] = {
      {"", 5, {}, "", 0},
      {"", 5, {0, 1, 2}, "0-2", 3},
      {"", 5, {3, 4}, "3,4", 2},
      {"0,2", 5, {1}, "0-2", 3},
      {"1-3", 10, {5, 7, 8, 9}, "1-3,5,7-9", 7},
      {"1-3,x,5", 10, {}, "1-3,5", 4},  // a malformed piece is skipped
      {"0-20", 4, {}, "0-3", 4},        // clipped to completions
      {"6,1", 5, {}, "", 0},            // stops at the first out of range, as upstream
  };
  for (const Row& r : rows) {
    INFO(r.text << " + " << r.added.size());
    Intervals iv = with_indexes(parse_indexes(r.text, r.completions), r.added);
    CHECK(format_indexes(iv) == r.formatted);
    CHECK(count_indexes(iv) == r.count);
  }
  Intervals iv = parse_indexes("1-3,7", 10);
  CHECK(has_index(iv, 2));
  CHECK(has_index(iv, 7));
  CHECK_FALSE(has_index(iv, 0));
  CHECK_FALSE(has_index(iv, 5));
  CHECK(first_pending_indexes(iv, 3, 10) == std::vector<int>{0, 4, 5});
  CHECK(first_pending_indexes(iv, 10, 9) == std::vector<int>{0, 4, 5, 6, 8});
  CHECK(first_pending_indexes({}, 2, 1) == std::vector<int>{0});
}

TEST_CASE("indexed pod names and indexes") {
  CHECK(indexed_generate_name("pi", 3) == "pi-3-");
  std::string long_name(60, 'a');
  CHECK(indexed_generate_name(long_name, 12) == std::string(54, 'a') + "-12-");
  json pod = {{"metadata", {{"annotations", {{"batch.kubernetes.io/job-completion-index", "4"}}}}}};
  CHECK(completion_index(pod) == 4);
  pod["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"] = "-1";
  CHECK(completion_index(pod) == -1);
  pod["metadata"]["annotations"]["batch.kubernetes.io/job-completion-index"] = "x";
  CHECK(completion_index(pod) == -1);
  CHECK(completion_index(json::object()) == -1);
}

TEST_CASE("pod failure policy: the first matching rule decides") {
  json policy = json::parse(R"({"rules": [
      {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]},
      {"action": "FailJob", "onExitCodes": {"containerName": "main", "operator": "In",
                                            "values": [42]}},
      {"action": "Count", "onExitCodes": {"operator": "NotIn", "values": [1, 2]}}]})");
  auto pod_exiting = [](const char* name, int code) {
    return json{{"metadata", {{"namespace", "default"}, {"name", "p"}}},
                {"status",
                 {{"phase", "Failed"},
                  {"containerStatuses",
                   {{{"name", name}, {"state", {{"terminated", {{"exitCode", code}}}}}}}}}}};
  };
  auto m = match_pod_failure_policy(policy, pod_exiting("main", 42));
  CHECK(m.action == "FailJob");
  CHECK(m.counts);
  CHECK(m.message ==
        "Container main for pod default/p failed with exit code 42 matching FailJob rule at "
        "index 1");
  CHECK(match_pod_failure_policy(policy, pod_exiting("side", 42)).action == "Count");
  m = match_pod_failure_policy(policy, pod_exiting("main", 1));
  CHECK(m.action.empty());
  CHECK(m.counts);
  json disrupted = pod_exiting("main", 42);
  disrupted["status"]["conditions"] = {{{"type", "DisruptionTarget"}, {"status", "True"}}};
  m = match_pod_failure_policy(policy, disrupted);
  CHECK(m.action == "Ignore");
  CHECK_FALSE(m.counts);
  // Exit code 0 never matches an exit-code rule.
  CHECK(match_pod_failure_policy(policy, pod_exiting("main", 0)).action.empty());
  json fail_on_condition = json::parse(R"({"rules": [{"action": "FailJob",
      "onPodConditions": [{"type": "ConfigIssue", "status": "True"}]}]})");
  json pod = pod_exiting("main", 1);
  pod["status"]["conditions"] = {{{"type", "ConfigIssue"}, {"status", "True"}}};
  CHECK(match_pod_failure_policy(fail_on_condition, pod).message ==
        "Pod default/p has condition ConfigIssue matching FailJob rule at index 0");
}

}  // namespace
}  // namespace k3c::controllers

TEST_CASE("a job's true condition is found in the job itself, not in a copy") {
  const nlohmann::json job = {{"status",
                               {{"conditions",
                                 {{{"type", "SuccessCriteriaMet"}, {"status", "True"}},
                                  {{"type", "Complete"}, {"status", "False"}}}}}}};
  const nlohmann::json* met = k3c::controllers::true_condition(job, "SuccessCriteriaMet");
  // The address of the job's own condition (a pointer into a copy dangled once it returned).
  CHECK(met == &job["status"]["conditions"][0]);
  CHECK(k3c::controllers::true_condition(job, "Complete") == nullptr);
  CHECK(k3c::controllers::true_condition(nlohmann::json::object(), "Complete") == nullptr);
  CHECK(k3c::controllers::true_condition({{"status", 1}}, "Complete") == nullptr);
}
