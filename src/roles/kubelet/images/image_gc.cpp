// Image garbage collection (see image_gc.h).
#include "roles/kubelet/images/image_gc.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "core/log.h"

namespace k3c::kubelet {

FsUsageProbe statvfs_probe(std::string path) {
  return [path = std::move(path)]() -> Result<FsUsage> {
    struct statvfs fs {};
    if (statvfs(path.c_str(), &fs) != 0) {
      return error(Code::kInternal, "statvfs " + path + ": " + std::strerror(errno));
    }
    return FsUsage{static_cast<uint64_t>(fs.f_blocks) * fs.f_frsize,
                   static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize};
  };
}

ImageGarbageCollector::ImageGarbageCollector(runtime::ImageService& images,
                                             runtime::RuntimeService& runtime, FsUsageProbe usage,
                                             NodeWarning warn, const Clock& clock,
                                             ImageGcPolicy policy)
    : images_(images),
      runtime_(runtime),
      usage_(std::move(usage)),
      warn_(std::move(warn)),
      clock_(clock),
      policy_(policy) {}

Result<std::map<std::string, bool>> ImageGarbageCollector::detect() {
  auto images = images_.list_images();
  if (!images.is_ok()) return images.status();
  auto containers = runtime_.list_containers();
  if (!containers.is_ok()) return containers.status();
  const Clock::TimePoint now = clock_.now();
  std::map<std::string, bool> in_use;  // every image id there is -> used by a container
  for (const runtime::ImageSummary& image : *images) in_use[image.id] = false;
  for (const runtime::ContainerStatus& c : *containers) {
    // A container names its image by id (image_ref) or, failing that, by the reference.
    for (const runtime::ImageSummary& image : *images) {
      const bool named = std::find(image.references.begin(), image.references.end(), c.image) !=
                         image.references.end();
      if (image.id == c.image_ref || (c.image_ref.empty() && named)) in_use[image.id] = true;
    }
  }
  std::map<std::string, Record> next;
  for (const runtime::ImageSummary& image : *images) {
    auto old = records_.find(image.id);
    Record r = old != records_.end() ? old->second : Record{now, Clock::TimePoint{}, 0};
    r.size = image.size;
    if (in_use[image.id]) r.last_used = now;
    next[image.id] = r;
  }
  records_ = std::move(next);  // forgets images removed by someone else
  return in_use;
}

Result<ImageGcOutcome> ImageGarbageCollector::collect() {
  auto in_use = detect();
  if (!in_use.is_ok()) return in_use.status();
  auto fs = usage_();
  if (!fs.is_ok()) return fs.status();
  if (fs->capacity_bytes == 0) {
    const std::string message = "invalid capacity 0 on image filesystem";
    if (warn_) warn_("InvalidDiskCapacity", message);
    return error(Code::kInternal, message);
  }
  const uint64_t capacity = fs->capacity_bytes;
  const uint64_t available = std::min(fs->available_bytes, capacity);
  ImageGcOutcome outcome;
  outcome.usage_percent = 100 - static_cast<int>(available * 100 / capacity);
  if (outcome.usage_percent < policy_.high_threshold_percent) return outcome;
  const uint64_t target = capacity * static_cast<uint64_t>(100 - policy_.low_threshold_percent) /
                          100;  // what should be available afterwards
  outcome.wanted_bytes = target > available ? target - available : 0;
  auto logger = log::for_role("kubelet");
  logger->info(
      "disk usage on the image filesystem is {}% (high threshold {}%): freeing {} bytes to reach "
      "the low threshold {}%",
      outcome.usage_percent, policy_.high_threshold_percent, outcome.wanted_bytes,
      policy_.low_threshold_percent);
  free_space(*in_use, outcome.wanted_bytes, outcome);
  if (outcome.freed_bytes < outcome.wanted_bytes) {
    const std::string message =
        "Failed to garbage collect required amount of images. Attempted to free " +
        std::to_string(outcome.wanted_bytes) + " bytes, but only found " +
        std::to_string(outcome.freed_bytes) + " bytes eligible to free.";
    if (warn_) warn_("FreeDiskSpaceFailed", message);
    return error(Code::kStorageFull, message);
  }
  return outcome;
}

void ImageGarbageCollector::free_space(const std::map<std::string, bool>& in_use, uint64_t wanted,
                                       ImageGcOutcome& outcome) {
  auto logger = log::for_role("kubelet");
  // Least recently used first; never used ones by when they were first seen.
  std::vector<std::pair<std::string, Record>> candidates(records_.begin(), records_.end());
  std::stable_sort(candidates.begin(), candidates.end(), [](const auto& a, const auto& b) {
    if (a.second.last_used != b.second.last_used) return a.second.last_used < b.second.last_used;
    return a.second.first_seen < b.second.first_seen;
  });
  const Clock::TimePoint now = clock_.now();
  for (const auto& [id, record] : candidates) {
    if (outcome.freed_bytes >= wanted) break;
    if (in_use.at(id)) continue;
    if (now - record.first_seen < policy_.minimum_age) continue;
    // An image a container started to use since detect() is refused by the runtime (it
    // excludes removal while creating containers); skip it and go on.
    if (Status s = images_.remove_image(id); !s.is_ok()) {
      logger->warn("image garbage collection: removing {}: {}", id, s.message());
      continue;
    }
    logger->info("image garbage collection removed {} ({} bytes)", id, record.size);
    records_.erase(id);
    outcome.freed_bytes += record.size;
    outcome.removed.push_back(id);
  }
}

Result<std::vector<std::string>> ImageGarbageCollector::delete_unused() {
  auto in_use = detect();
  if (!in_use.is_ok()) return in_use.status();
  ImageGcOutcome outcome;
  free_space(*in_use, UINT64_MAX, outcome);
  return outcome.removed;
}

void ImageGarbageCollector::run_periodic() {
  auto outcome = collect();
  if (!outcome.is_ok()) {
    // As upstream: the first failure may be start-up noise; a repeated one is an event.
    log::for_role("kubelet")->warn("image garbage collection failed{}: {}",
                                   failed_before_ ? " multiple times in a row" : " once",
                                   outcome.status().message());
    if (failed_before_ && warn_) warn_("ImageGCFailed", outcome.status().message());
  }
  failed_before_ = !outcome.is_ok();
}

}  // namespace k3c::kubelet
