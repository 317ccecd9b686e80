// The kubelet's eviction thresholds, as upstream's (pkg/kubelet/eviction/api and
// ParseThresholdConfig): the signals, the values of --eviction-hard / --eviction-soft
// ("memory.available<100Mi,nodefs.available<10%"), --eviction-soft-grace-period
// ("memory.available=1m30s") and --eviction-minimum-reclaim ("nodefs.available=500Mi"),
// and the list of thresholds they make together. Pure; the CLI parses the flags with these
// functions at start, so a mistake is an error before anything runs.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/quantity.h"
#include "core/status.h"

namespace k3c::kubelet {

enum class Signal {
  kMemoryAvailable,    // memory.available: capacity minus working set
  kNodeFsAvailable,    // nodefs.available: bytes free on the kubelet's filesystem
  kNodeFsInodesFree,   // nodefs.inodesFree
  kImageFsAvailable,   // imagefs.available: bytes free on the runtime's image filesystem
  kImageFsInodesFree,  // imagefs.inodesFree
  kPidAvailable,       // pid.available: the pid limit minus the processes running
};

// "memory.available", ...
std::string_view signal_name(Signal signal);
std::optional<Signal> signal_from_name(std::string_view name);
// The resource a signal is about: "memory", "ephemeral-storage" (disk signals), "pids".
std::string_view signal_resource(Signal signal);
// The node condition a signal sets: "MemoryPressure", "DiskPressure", "PIDPressure".
std::string_view signal_condition(Signal signal);

// A quantity ("100Mi") or a fraction of the capacity ("10%" -> 0.10).
struct ThresholdValue {
  std::optional<api::Quantity> quantity;
  double percentage = 0;
  bool operator==(const ThresholdValue&) const = default;
};
// The amount of `value` for a capacity: the quantity as given, else the capacity's fraction.
api::Quantity threshold_quantity(const ThresholdValue& value, int64_t capacity);

struct Threshold {
  Signal signal = Signal::kMemoryAvailable;
  ThresholdValue value;  // met when what is available is less than this
  // 0 for a hard threshold (acted on at once); a soft one must be met this long.
  std::chrono::milliseconds grace_period{0};
  std::optional<ThresholdValue> min_reclaim;  // what must be free beyond the threshold
  bool hard() const { return grace_period.count() == 0; }
  bool operator==(const Threshold&) const = default;
};

using ThresholdMap = std::map<Signal, ThresholdValue>;

// The settings as the flags give them (kubelet_settings.h holds one).
struct EvictionSettings {
  // eviction-hard; nullopt = upstream's defaults (memory.available<100Mi,
  // nodefs.available<10%, nodefs.inodesFree<5%, imagefs.available<15%). As upstream's map
  // flag, the first eviction-hard given replaces the defaults (signals not named are not
  // watched) and later ones add to it.
  std::optional<ThresholdMap> hard;
  ThresholdMap soft;                                              // eviction-soft
  std::map<Signal, std::chrono::milliseconds> soft_grace_period;  // eviction-soft-grace-period
  ThresholdMap minimum_reclaim;                                   // eviction-minimum-reclaim
  // eviction-pressure-transition-period: how long a pressure condition stays True after the
  // threshold was last met.
  std::chrono::milliseconds pressure_transition_period{300'000};
  // eviction-max-pod-grace-period: the longest grace period a soft eviction gives a pod (0:
  // the pod's own, as upstream's zero value means no cap beyond the pod's).
  int max_pod_grace_period_seconds = 0;
};

ThresholdMap default_hard_thresholds();

// "memory.available<100Mi,nodefs.available<10%": errors name the bad part as upstream
// ("unsupported eviction signal foo", "eviction threshold memory.available must be positive:
// 0"). "0%" and "100%" are ignored, as upstream does.
Result<ThresholdMap> parse_threshold_list(std::string_view text);
// "memory.available=1m30s,nodefs.available=2m".
Result<std::map<Signal, std::chrono::milliseconds>> parse_grace_period_list(std::string_view text);
// "memory.available=0Mi,nodefs.available=5%".
Result<ThresholdMap> parse_minimum_reclaim_list(std::string_view text);

// The thresholds of `settings`, hard ones first; kInvalid when a soft threshold has no grace
// period (or a grace period no soft threshold).
Result<std::vector<Threshold>> eviction_thresholds(const EvictionSettings& settings);

}  // namespace k3c::kubelet
