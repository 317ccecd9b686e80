// Image garbage collection, as upstream's kubelet (pkg/kubelet/images, ImageGCManager):
// every 5 minutes the kubelet looks at the filesystem that holds the images; when its usage
// reaches image-gc-high-threshold percent, it removes unused images, least recently used
// first, until usage would be down to image-gc-low-threshold percent. An image is never
// removed while any container (running or exited) of the runtime refers to it, nor before
// it has been known for minimum-image-ttl-duration. When not enough can be freed, a
// FreeDiskSpaceFailed event on the node says how much it tried and found.
//
// "Used" and "first seen" are kept in memory (as upstream): after a restart every image
// counts as first seen at that start, so nothing is removed within the minimum age.
//
// Thread-safety: one thread at a time (the kubelet's housekeeping thread, or a test).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/status.h"
#include "runtime/runtime_service.h"

namespace k3c::kubelet {

struct ImageGcPolicy {
  int high_threshold_percent = 85;  // 100 switches collection off
  int low_threshold_percent = 80;
  std::chrono::milliseconds minimum_age{120'000};
};

// The filesystem that holds the images (statvfs in production).
struct FsUsage {
  uint64_t capacity_bytes = 0;
  uint64_t available_bytes = 0;
};
using FsUsageProbe = std::function<Result<FsUsage>()>;
// statvfs(2) of `path`.
FsUsageProbe statvfs_probe(std::string path);

// A warning about the node (reason, message): the kubelet's event recorder.
using NodeWarning = std::function<void(const std::string& reason, const std::string& message)>;

struct ImageGcOutcome {
  int usage_percent = 0;
  uint64_t wanted_bytes = 0;  // 0 when usage is below the high threshold
  uint64_t freed_bytes = 0;
  std::vector<std::string> removed;  // image ids
};

class ImageGarbageCollector {
 public:
  ImageGarbageCollector(runtime::ImageService& images, runtime::RuntimeService& runtime,
                        FsUsageProbe usage, NodeWarning warn, const Clock& clock,
                        ImageGcPolicy policy);
  ImageGarbageCollector(const ImageGarbageCollector&) = delete;
  ImageGarbageCollector& operator=(const ImageGarbageCollector&) = delete;

  // One pass. An error when the usage cannot be read or not enough could be freed (the
  // FreeDiskSpaceFailed event is then recorded); images removed before are still removed.
  Result<ImageGcOutcome> collect();

  // Removes every unused image past the minimum age, whatever the usage (upstream's
  // DeleteUnusedImages, which the eviction manager calls under disk pressure before it
  // evicts pods); the ids removed.
  Result<std::vector<std::string>> delete_unused();

  // The periodic pass (every 5 min, as upstream's ImageGCPeriod): collect(), its failure
  // logged; a second failure in a row is also an ImageGCFailed event.
  void run_periodic();

 private:
  struct Record {
    Clock::TimePoint first_seen{};
    Clock::TimePoint last_used{};
    uint64_t size = 0;
  };
  // Refreshes records_ from the image list and the containers; the ids in use.
  Result<std::map<std::string, bool>> detect();
  // Removes unused images old enough, least recently used first, until `wanted` bytes are
  // freed; adds them to `outcome`.
  void free_space(const std::map<std::string, bool>& in_use, uint64_t wanted,
                  ImageGcOutcome& outcome);

  runtime::ImageService& images_;
  runtime::RuntimeService& runtime_;
  const FsUsageProbe usage_;
  const NodeWarning warn_;
  const Clock& clock_;
  const ImageGcPolicy policy_;
  std::map<std::string, Record> records_;  // by image id
  bool failed_before_ = false;
};

}  // namespace k3c::kubelet
