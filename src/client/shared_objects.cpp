// The process's shared parsed objects (see shared_objects.h).
#include "client/shared_objects.h"

#include <algorithm>

namespace k3c::client {

namespace {

std::string_view resource_version_of(const nlohmann::json& object) {
  if (!object.is_object()) return {};
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return {};
  auto rv = meta->find("resourceVersion");
  if (rv == meta->end() || !rv->is_string()) return {};
  return rv->get_ref<const std::string&>();
}

}  // namespace

std::string SharedObjects::key(std::string_view resource_path, std::string_view resource_version) {
  std::string k;
  k.reserve(resource_path.size() + resource_version.size() + 1);
  k += resource_path;
  k += ' ';
  k += resource_version;
  return k;
}

SharedObjects::Ptr SharedObjects::find(std::string_view resource_path,
                                       std::string_view resource_version) const {
  if (resource_version.empty()) return nullptr;
  std::lock_guard lock(mu_);
  auto it = objects_.find(key(resource_path, resource_version));
  return it == objects_.end() ? nullptr : it->second.lock();
}

SharedObjects::Ptr SharedObjects::share(std::string_view resource_path, Ptr object) {
  std::string_view rv = object ? resource_version_of(*object) : std::string_view();
  if (rv.empty()) return object;
  std::lock_guard lock(mu_);
  auto [it, inserted] = objects_.try_emplace(key(resource_path, rv), object);
  if (!inserted) {
    if (Ptr filed = it->second.lock()) return filed;
    it->second = object;
  }
  if (objects_.size() >= sweep_at_) sweep_locked();
  return object;
}

void SharedObjects::sweep_locked() {
  std::erase_if(objects_, [](const auto& entry) { return entry.second.expired(); });
  sweep_at_ = std::max<size_t>(1024, objects_.size() * 2);
}

size_t SharedObjects::size() const {
  std::lock_guard lock(mu_);
  return objects_.size();
}

}  // namespace k3c::client
