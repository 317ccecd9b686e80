// Pod events kept in memory for kubelet unit tests, as "Type Reason [fieldPath]: message".
#pragma once

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "roles/kubelet/pods/sync_context.h"

namespace k3c::kubelet::testing {

class RecordedEvents final : public PodEvents {
 public:
  void record(const nlohmann::json&, const std::string& field_path, const std::string& type,
              const std::string& reason, const std::string& message) override {
    std::lock_guard lock(mu_);
    lines_.push_back(type + " " + reason + (field_path.empty() ? "" : " [" + field_path + "]") +
                     ": " + message);
  }
  // The events so far, and forgets them.
  std::vector<std::string> take() {
    std::lock_guard lock(mu_);
    return std::exchange(lines_, {});
  }

 private:
  std::mutex mu_;
  std::vector<std::string> lines_;
};

}  // namespace k3c::kubelet::testing
