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

// Files `object` under `key` unless a live one is filed there already, which then replaces
// `object`.
template <typename T>
void SharedObjects::file_locked(Table<T>& table, std::string key,
                                std::shared_ptr<const T>& object) {
  auto [it, inserted] = table.entries.try_emplace(std::move(key), object);
  if (!inserted) {
    if (auto filed = it->second.lock()) {
      object = std::move(filed);
      return;
    }
    it->second = object;
  }
  if (table.entries.size() >= table.sweep_at) {
    std::erase_if(table.entries, [](const auto& entry) { return entry.second.expired(); });
    table.sweep_at = std::max<size_t>(1024, table.entries.size() * 2);
  }
}

template <typename T>
std::shared_ptr<const T> SharedObjects::find_in(const Table<T>& table,
                                                std::string_view resource_path,
                                                std::string_view resource_version) const {
  if (resource_version.empty()) return nullptr;
  std::lock_guard lock(mu_);
  auto it = table.entries.find(key(resource_path, resource_version));
  return it == table.entries.end() ? nullptr : it->second.lock();
}

SharedObjects::Ptr SharedObjects::find(std::string_view resource_path,
                                       std::string_view resource_version) const {
  return find_in(objects_, resource_path, resource_version);
}

SharedObjects::Ptr SharedObjects::share(std::string_view resource_path, Ptr object) {
  std::string_view rv = object ? resource_version_of(*object) : std::string_view();
  if (rv.empty()) return object;
  std::lock_guard lock(mu_);
  file_locked(objects_, key(resource_path, rv), object);
  return object;
}

SharedObjects::DocPtr SharedObjects::find_document(std::string_view resource_path,
                                                   std::string_view resource_version) const {
  return find_in(documents_, resource_path, resource_version);
}

SharedObjects::DocPtr SharedObjects::share_document(std::string_view resource_path,
                                                    const nlohmann::json& object) {
  std::string_view rv = resource_version_of(object);
  if (rv.empty()) return cjson::Document::from(object);
  if (auto filed = find_document(resource_path, rv)) return filed;
  DocPtr doc = cjson::Document::from(object);  // built outside the lock
  std::lock_guard lock(mu_);
  file_locked(documents_, key(resource_path, rv), doc);
  return doc;
}

size_t SharedObjects::size() const {
  std::lock_guard lock(mu_);
  return objects_.entries.size() + documents_.entries.size();
}

}  // namespace k3c::client
