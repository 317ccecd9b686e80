#include "roles/controllers/job/job_math.h"

#include <algorithm>
#include <charconv>

#include "core/ids.h"

namespace k3c::controllers {

using nlohmann::json;

namespace {
constexpr auto kBackoffBase = std::chrono::seconds(10);
constexpr auto kBackoffMax = std::chrono::minutes(10);
constexpr size_t kMaxGeneratedPrefix = 58;  // 63 minus the 5 random characters

std::optional<int> to_int(std::string_view s) {
  int v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

const json& field(const json& o, const char* name) {
  static const json kNull;
  if (!o.is_object()) return kNull;
  auto it = o.find(name);
  return it == o.end() ? kNull : *it;
}

std::string str(const json& o, const char* name) {
  const json& v = field(o, name);
  return v.is_string() ? v.get<std::string>() : "";
}

std::optional<WallTime> time_of(const json& v) {
  if (!v.is_string()) return std::nullopt;
  return parse_rfc3339(v.get_ref<const std::string&>());
}

// The exit code of a terminated container whose status matches the requirement.
const json* matching_container(const json& statuses, const json& req) {
  if (!statuses.is_array()) return nullptr;
  std::string name = str(req, "containerName");
  std::string op = str(req, "operator");
  const json& values = field(req, "values");
  for (const json& c : statuses) {
    const json& terminated = field(field(c, "state"), "terminated");
    if (!terminated.is_object()) continue;
    if (!name.empty() && str(c, "name") != name) continue;
    const json& code = field(terminated, "exitCode");
    if (!code.is_number_integer() || code.get<int64_t>() == 0) continue;
    bool listed = false;
    if (values.is_array()) {
      for (const json& v : values) listed = listed || v == code;
    }
    if ((op == "In" && listed) || (op == "NotIn" && !listed)) return &c;
  }
  return nullptr;
}

}  // namespace

std::chrono::seconds pod_failure_backoff(int failures) {
  if (failures <= 0) return std::chrono::seconds(0);
  std::chrono::seconds d = kBackoffBase;
  for (int i = 1; i < failures; ++i) {
    d *= 2;
    if (d >= kBackoffMax) return kBackoffMax;
  }
  return d;
}

std::chrono::nanoseconds backoff_remaining(int failures, WallTime last_failure, WallTime now) {
  auto wait = pod_failure_backoff(failures);
  auto elapsed = now - last_failure;
  if (failures <= 0 || wait < elapsed) return std::chrono::nanoseconds(0);
  return std::chrono::duration_cast<std::chrono::nanoseconds>(wait - elapsed);
}

BackoffRecord next_backoff_record(BackoffRecord r, std::vector<WallTime> succeeded,
                                  std::vector<WallTime> failed) {
  std::sort(succeeded.begin(), succeeded.end());
  std::sort(failed.begin(), failed.end());
  if (succeeded.empty()) {
    if (failed.empty()) return r;
    r.failures += static_cast<int>(failed.size());
    r.last_failure = failed.back();
    return r;
  }
  // A success resets the count; only failures after the last success count.
  r = {};
  for (auto it = failed.rbegin(); it != failed.rend() && *it > succeeded.back(); ++it) {
    if (!r.last_failure) r.last_failure = *it;
    ++r.failures;
  }
  return r;
}

WallTime pod_finish_time(const json& pod) {
  const json& status = field(pod, "status");
  const json& containers = field(status, "containerStatuses");
  std::optional<WallTime> latest;
  bool all_finished = containers.is_array() && !containers.empty();
  if (containers.is_array()) {
    for (const json& c : containers) {
      auto at = time_of(field(field(field(c, "state"), "terminated"), "finishedAt"));
      if (!at) {
        all_finished = false;
        break;
      }
      if (!latest || *at > *latest) latest = at;
    }
  }
  if (all_finished && latest) return *latest;
  const json& conditions = field(status, "conditions");
  if (conditions.is_array()) {
    for (const json& c : conditions) {
      if (str(c, "type") == "Ready" && str(c, "status") == "False") {
        if (auto at = time_of(field(c, "lastTransitionTime"))) return *at;
      }
    }
  }
  const json& meta = field(pod, "metadata");
  if (auto deleted = time_of(field(meta, "deletionTimestamp"))) {
    const json& grace = field(meta, "deletionGracePeriodSeconds");
    return *deleted - std::chrono::seconds(grace.is_number_integer() ? grace.get<int64_t>() : 0);
  }
  return time_of(field(meta, "creationTimestamp")).value_or(WallTime());
}

Intervals parse_indexes(std::string_view text, int completions) {
  Intervals out;
  if (text.empty()) return out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string_view piece = text.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    start = comma == std::string_view::npos ? text.size() + 1 : comma + 1;
    size_t dash = piece.find('-');
    auto first = to_int(piece.substr(0, dash));
    if (!first) continue;
    if (*first >= completions) break;
    int last = *first;
    if (dash != std::string_view::npos) {
      auto l = to_int(piece.substr(dash + 1));
      if (!l) continue;
      last = std::min(*l, completions - 1);
    }
    if (!out.empty() && out.back().last == *first - 1) {
      out.back().last = last;
    } else {
      out.push_back({*first, last});
    }
  }
  return out;
}

std::string format_indexes(const Intervals& intervals) {
  std::string out;
  for (const Interval& v : intervals) {
    if (!out.empty()) out += ',';
    out += std::to_string(v.first);
    if (v.last > v.first) out += (v.last == v.first + 1 ? "," : "-") + std::to_string(v.last);
  }
  return out;
}

Intervals with_indexes(const Intervals& intervals, const std::vector<int>& added) {
  Intervals all = intervals;
  for (int i : added) all.push_back({i, i});
  std::sort(all.begin(), all.end(),
            [](const Interval& a, const Interval& b) { return a.first < b.first; });
  Intervals out;
  for (const Interval& v : all) {
    if (!out.empty() && v.first <= out.back().last + 1) {
      out.back().last = std::max(out.back().last, v.last);
    } else {
      out.push_back(v);
    }
  }
  return out;
}

bool has_index(const Intervals& intervals, int index) {
  auto it = std::lower_bound(intervals.begin(), intervals.end(), index,
                             [](const Interval& v, int i) { return v.last < i; });
  return it != intervals.end() && it->first <= index;
}

int count_indexes(const Intervals& intervals) {
  int n = 0;
  for (const Interval& v : intervals) n += v.last - v.first + 1;
  return n;
}

std::vector<int> first_pending_indexes(const Intervals& taken, int count, int completions) {
  std::vector<int> out;
  int candidate = 0;
  for (const Interval& v : taken) {
    for (; candidate < completions && static_cast<int>(out.size()) < count && candidate < v.first;
         ++candidate)
      out.push_back(candidate);
    candidate = std::max(candidate, v.last + 1);
  }
  for (; candidate < completions && static_cast<int>(out.size()) < count; ++candidate)
    out.push_back(candidate);
  return out;
}

int completion_index(const json& pod) {
  const json& a = field(field(pod, "metadata"), "annotations");
  auto v = to_int(str(a, "batch.kubernetes.io/job-completion-index"));
  return v && *v >= 0 ? *v : -1;
}

std::string indexed_generate_name(const std::string& job_name, int index) {
  std::string suffix = "-" + std::to_string(index) + "-";
  std::string prefix = job_name + suffix;
  if (prefix.size() > kMaxGeneratedPrefix)
    prefix = job_name.substr(0, kMaxGeneratedPrefix - suffix.size()) + suffix;
  return prefix;
}

PolicyMatch match_pod_failure_policy(const json& policy, const json& pod) {
  const json& rules = field(policy, "rules");
  if (!rules.is_array()) return {};
  const json& status = field(pod, "status");
  std::string pod_ref =
      str(field(pod, "metadata"), "namespace") + "/" + str(field(pod, "metadata"), "name");
  for (size_t i = 0; i < rules.size(); ++i) {
    const json& rule = rules[i];
    std::string action = str(rule, "action");
    std::string message;
    const json& on_exit = field(rule, "onExitCodes");
    const json& on_conditions = field(rule, "onPodConditions");
    if (on_exit.is_object()) {
      const json* c = matching_container(field(status, "containerStatuses"), on_exit);
      if (!c) c = matching_container(field(status, "initContainerStatuses"), on_exit);
      if (!c) continue;
      message = "Container " + str(*c, "name") + " for pod " + pod_ref + " failed with exit code " +
                std::to_string(
                    field(field(field(*c, "state"), "terminated"), "exitCode").get<int64_t>()) +
                " matching " + action + " rule at index " + std::to_string(i);
    } else if (on_conditions.is_array()) {
      const json& conditions = field(status, "conditions");
      const json* matched = nullptr;
      if (conditions.is_array()) {
        for (const json& c : conditions) {
          for (const json& p : on_conditions) {
            if (!matched && str(c, "type") == str(p, "type") &&
                str(c, "status") == str(p, "status"))
              matched = &c;
          }
        }
      }
      if (!matched) continue;
      message = "Pod " + pod_ref + " has condition " + str(*matched, "type") + " matching " +
                action + " rule at index " + std::to_string(i);
    } else {
      continue;
    }
    if (action == "Ignore") return {action, false, ""};
    if (action == "Count" || action == "FailIndex") return {action, true, ""};
    if (action == "FailJob") return {action, true, message};
  }
  return {};
}

}  // namespace k3c::controllers
