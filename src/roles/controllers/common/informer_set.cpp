#include "roles/controllers/common/informer_set.h"

namespace k3c::controllers {

client::Informer& InformerSet::informer(const client::ResourceId& resource) {
  auto& slot = informers_[resource.path()];
  if (!slot) slot = std::make_unique<client::Informer>(client_, resource);
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

}  // namespace k3c::controllers
