// Records kept in memory (see record_cache.h).
#include "runtime/linux/record_cache.h"

namespace k3c::runtime {
namespace {

template <typename Record, typename Load>
Result<Record> cached(std::mutex& mu, std::map<std::string, Record>& kept, const std::string& path,
                      Load load) {
  {
    std::lock_guard lock(mu);
    if (auto it = kept.find(path); it != kept.end()) return it->second;
  }
  // Read outside the lock; two readers of one path store the same contents.
  auto record = load(path);
  if (!record.is_ok()) return record.status();
  std::lock_guard lock(mu);
  kept.insert_or_assign(path, *record);
  return record;
}

template <typename Record>
Status saved(std::mutex& mu, std::map<std::string, Record>& kept, const std::string& path,
             const Record& record) {
  Status status = save_record(path, record);
  std::lock_guard lock(mu);
  if (status.is_ok()) {
    kept.insert_or_assign(path, record);
  } else {
    kept.erase(path);
  }
  return status;
}

}  // namespace

Result<SandboxRecord> RecordCache::sandbox(const std::string& path) {
  return cached(mu_, sandboxes_, path, load_sandbox_record);
}
Result<ContainerRecord> RecordCache::container(const std::string& path) {
  return cached(mu_, containers_, path, load_container_record);
}
Status RecordCache::save(const std::string& path, const SandboxRecord& record) {
  return saved(mu_, sandboxes_, path, record);
}
Status RecordCache::save(const std::string& path, const ContainerRecord& record) {
  return saved(mu_, containers_, path, record);
}
void RecordCache::forget(const std::string& path) {
  std::lock_guard lock(mu_);
  sandboxes_.erase(path);
  containers_.erase(path);
}

}  // namespace k3c::runtime
