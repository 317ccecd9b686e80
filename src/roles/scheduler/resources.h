// A vector of resource amounts as the scheduler compares them: cpu in milli-cores, memory and
// ephemeral-storage in bytes, the pod count, and every other resource (extended resources such
// as nvidia.com/gpu, hugepages-*) by name in its whole units. Built from Quantity (api/quantity.h).
#pragma once

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <utility>
#include <vector>

namespace k3c::scheduler {

struct Resources {
  int64_t milli_cpu = 0;
  int64_t memory = 0;
  int64_t ephemeral_storage = 0;
  int64_t pods = 0;
  // Sorted by name; small (usually empty), so a vector beats a map.
  std::vector<std::pair<std::string, int64_t>> scalar;

  int64_t scalar_value(const std::string& name) const;
  void add_scalar(const std::string& name, int64_t amount);
  void add(const Resources& other);
  void subtract(const Resources& other);
  // Each dimension becomes the larger of the two (init containers run one after the other).
  void set_max(const Resources& other);
  bool empty() const {
    return milli_cpu == 0 && memory == 0 && ephemeral_storage == 0 && scalar.empty();
  }
  bool operator==(const Resources&) const = default;
};

// A ResourceList object ({"cpu": "500m", "memory": "1Gi", ...}); amounts that do not parse
// count as zero (the apiserver validates them before they get here).
Resources resources_from_list(const nlohmann::json& list);

}  // namespace k3c::scheduler
