#include "roles/controllers/common/informer_set.h"

#include "roles/controllers/common/object_reads.h"
#include "roles/controllers/common/objects.h"

namespace k3c::controllers {

client::Informer& InformerSet::informer(const client::ResourceId& resource) {
  auto& slot = informers_[resource.path()];
  if (!slot) {
    client::CacheTransform transform;
    if (resource.path() == client::resources::kPods.path()) {
      transform = pod_transform_;
    } else if (resource.path() == client::resources::kNodes.path() ||
               resource.path() == client::resources::kLeases.path()) {
      transform = client::compact_objects();
    }
    slot = std::make_unique<client::Informer>(client_, resource, client::ListOptions{}, shared_,
                                              std::move(transform));
  }
  return *slot;
}

void InformerSet::start_all() {
  for (auto& [path, informer] : informers_) informer->start();
}

bool InformerSet::wait_synced(std::chrono::nanoseconds timeout) const {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (const auto& [path, informer] : informers_) {
    auto left = deadline - std::chrono::steady_clock::now();
    if (!informer->wait_synced(std::max<std::chrono::nanoseconds>(left, {}))) return false;
  }
  return true;
}

void InformerSet::stop_all() {
  for (auto& [path, informer] : informers_) informer->stop();
}

void index_pods_by_node(client::Informer& pods) {
  pods.add_index(kPodsByNodeIndex, [](const nlohmann::json& pod) {
    auto spec = pod.find("spec");
    const std::string node =
        spec != pod.end() && spec->is_object() ? spec->value("nodeName", "") : std::string();
    return node.empty() ? std::vector<std::string>{} : std::vector<std::string>{node};
  });
}

namespace {

// No uid contains a '/': orphan values never meet a controller's uid.
std::string orphan_value(std::string_view ns) { return "orphans/" + std::string(ns); }

// A scan of the namespace, for an informer without the index (correct, only slower).
template <typename Keep>
std::vector<client::ObjectPtr> scan_namespace(const client::Informer& informer,
                                              const std::string& ns, Keep keep) {
  std::vector<client::ObjectPtr> out;
  for (auto& object : informer.in_namespace(ns)) {
    if (keep(*object)) out.push_back(std::move(object));
  }
  return out;
}

}  // namespace

void index_by_controller(client::Informer& informer) {
  informer.add_index(kByControllerIndex, [](const nlohmann::json& object) {
    const nlohmann::json* ref = controller_ref(object);
    return std::vector<std::string>{ref ? ref_uid(*ref) : orphan_value(namespace_of(object))};
  });
}

std::vector<client::Informer::Cached> cached_controlled_by(const client::Informer& informer,
                                                           const nlohmann::json& owner) {
  const std::string& uid = uid_of(owner);
  const std::string& ns = namespace_of(owner);
  if (uid.empty()) return {};
  if (!informer.has_index(kByControllerIndex)) {
    std::vector<client::Informer::Cached> out;
    for (auto& object : scan_namespace(informer, ns, [&](const nlohmann::json& object) {
           return controller_uid(object) == uid && namespace_of(object) == ns;
         }))
      out.push_back({std::move(object), nullptr});
    return out;
  }
  auto out = informer.cached_by_index(kByControllerIndex, uid);
  // A uid is unique, but a cache holds what the API stored: keep to the owner's namespace.
  std::erase_if(out, [&](const client::Informer::Cached& o) {
    return read_cached(o, [&](const auto& object) { return meta_text(object, "namespace") != ns; });
  });
  return out;
}

std::vector<client::Informer::Cached> cached_orphans_in(const client::Informer& informer,
                                                        const std::string& ns) {
  if (!informer.has_index(kByControllerIndex)) {
    std::vector<client::Informer::Cached> out;
    for (auto& object : scan_namespace(
             informer, ns, [](const nlohmann::json& o) { return controller_ref(o) == nullptr; }))
      out.push_back({std::move(object), nullptr});
    return out;
  }
  return informer.cached_by_index(kByControllerIndex, orphan_value(ns));
}

std::vector<client::ObjectPtr> controlled_by(const client::Informer& informer,
                                             const nlohmann::json& owner) {
  return informer.trees_of(cached_controlled_by(informer, owner));
}

std::vector<client::ObjectPtr> orphans_in(const client::Informer& informer, const std::string& ns) {
  return informer.trees_of(cached_orphans_in(informer, ns));
}

}  // namespace k3c::controllers
