// The arithmetic of the Job controller, as upstream's: the pod-failure backoff, completion
// index intervals ("1-3,5" in status.completedIndexes), the next indexes to run, and matching a
// failed pod against spec.podFailurePolicy. Pure functions, unit-tested.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace k3c::controllers {

using WallTime = std::chrono::system_clock::time_point;

// Replacement pods after consecutive failures wait 10 s, doubling per failure, capped at
// 10 minutes (upstream's DefaultJobPodFailureBackOff / MaxJobPodFailureBackOff).
std::chrono::seconds pod_failure_backoff(int failures);
// What is left of that wait at `now` after the last failure at `last_failure` (0: go ahead).
std::chrono::nanoseconds backoff_remaining(int failures, WallTime last_failure, WallTime now);

// Consecutive failures since the last success (upstream's backoffRecord).
struct BackoffRecord {
  int failures = 0;
  std::optional<WallTime> last_failure;
};
// The record after newly finished pods (each given by its finish time).
BackoffRecord next_backoff_record(BackoffRecord previous, std::vector<WallTime> succeeded,
                                  std::vector<WallTime> failed);
// When a pod finished: the latest container termination, else when Ready turned False, else
// its deletion time, else its creation.
WallTime pod_finish_time(const nlohmann::json& pod);

// Ordered, merged index intervals.
struct Interval {
  int first = 0, last = 0;
  bool operator==(const Interval&) const = default;
};
using Intervals = std::vector<Interval>;
// Parses "1-3,5,7" keeping indexes below `completions`; malformed pieces are skipped.
Intervals parse_indexes(std::string_view text, int completions);
// "1-3,5,7-8"; two neighbours print as "7,8" as upstream.
std::string format_indexes(const Intervals& intervals);
// The intervals with `added` (ascending) merged in.
Intervals with_indexes(const Intervals& intervals, const std::vector<int>& added);
bool has_index(const Intervals& intervals, int index);
int count_indexes(const Intervals& intervals);
// The first `count` indexes below `completions` not in `taken`.
std::vector<int> first_pending_indexes(const Intervals& taken, int count, int completions);

// batch.kubernetes.io/job-completion-index of a pod (annotation), -1 when absent or invalid.
int completion_index(const nlohmann::json& pod);
// generateName for the pod of index `index`: "<job>-<index>-", the job name cut so that the
// whole prefix fits the 58 characters a generated name may start with.
std::string indexed_generate_name(const std::string& job_name, int index);

// A failed pod against spec.podFailurePolicy: the first rule that matches decides.
struct PolicyMatch {
  std::string action;   // "" (no rule matched), FailJob, Ignore, Count, FailIndex
  bool counts = true;   // counts towards backoffLimit (false for Ignore)
  std::string message;  // for FailJob: why the job fails
};
PolicyMatch match_pod_failure_policy(const nlohmann::json& policy, const nlohmann::json& pod);

}  // namespace k3c::controllers
