// The unschedulable message in upstream's exact form (FitError.Error()).
#include <algorithm>
#include <map>

#include "roles/scheduler/schedule.h"

namespace k3c::scheduler {

std::string fit_error_message(size_t num_nodes, const Diagnosis& diagnosis,
                              const std::string& post_filter_message) {
  if (num_nodes == 0) return "no nodes available to schedule pods";
  std::string message = "0/" + std::to_string(num_nodes) + " nodes are available:";
  if (!diagnosis.prefilter_message.empty()) {
    message += " " + diagnosis.prefilter_message + ".";
  } else {
    std::map<std::string, size_t> histogram;
    for (const NodeFailure& f : diagnosis.failures) {
      for (const std::string& reason : f.status.reasons) ++histogram[reason];
    }
    std::vector<std::string> parts;
    for (const auto& [reason, count] : histogram)
      parts.push_back(std::to_string(count) + " " + reason);
    // Upstream sorts the "<count> <reason>" strings themselves, so "10 x" sorts before "2 y".
    std::sort(parts.begin(), parts.end());
    if (!parts.empty()) {
      message += " ";
      for (size_t i = 0; i < parts.size(); ++i) message += (i ? ", " : "") + parts[i];
      message += ".";
    }
  }
  // The post-filter text already ends in a period (preemption's own "0/N nodes are
  // available: ...." or "not eligible ...."), and kube-scheduler's output shows one.
  if (!post_filter_message.empty()) {
    message += " " + post_filter_message;
    if (post_filter_message.back() != '.') message += ".";
  }
  return message;
}

}  // namespace k3c::scheduler
