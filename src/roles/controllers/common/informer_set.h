// The controllers' shared informers: one cache per resource, however many controllers read
// it (upstream's SharedInformerFactory). Pods are cached with the transform given (in the
// server client::control_plane_pods, cache_transforms.h): no controller may PUT a cached pod
// back whole (metadata_writes.h).
//
// Threads: informer() before start_all(), from one thread; the rest from any thread.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "client/informer.h"

namespace k3c::controllers {

class InformerSet {
 public:
  // `shared`: the parsed trees shared with the process's other informers (may be null).
  // `pod_transform`: applied to the pods cached (none: whole).
  explicit InformerSet(client::Client& client,
                       std::shared_ptr<client::SharedObjects> shared = nullptr,
                       client::CacheTransform pod_transform = {})
      : client_(client), shared_(std::move(shared)), pod_transform_(std::move(pod_transform)) {}
  ~InformerSet() { stop_all(); }

  client::Informer& informer(const client::ResourceId& resource);
  void start_all();
  // True when every informer listed within `timeout`.
  bool wait_synced(std::chrono::nanoseconds timeout) const;
  void stop_all();
  // For informers a controller owns itself (the garbage collector's of custom resources).
  const std::shared_ptr<client::SharedObjects>& shared_objects() const { return shared_; }

 private:
  client::Client& client_;
  const std::shared_ptr<client::SharedObjects> shared_;
  const client::CacheTransform pod_transform_;
  std::map<std::string, std::unique_ptr<client::Informer>> informers_;
};

// The pods informer's index by spec.nodeName ("which pods are bound to node X"), added by
// every controller that asks it (adding it twice is harmless).
inline constexpr const char* kPodsByNodeIndex = "spec.nodeName";
void index_pods_by_node(client::Informer& pods);

// An informer's index by controller (upstream's PodControllerUIDIndex): an object is filed
// under the uid of its controller reference or, when nothing controls it, under its
// namespace's orphan value. claim() (claim.h) reads an owner's candidates from it, so a
// sync costs the owner's objects, not its namespace's. Added by every controller that claims
// from the informer (adding it twice is harmless).
inline constexpr const char* kByControllerIndex = "controller-uid";
void index_by_controller(client::Informer& informer);
// The objects of `informer` that `owner` controls (by the index above; a scan of the owner's
// namespace when the informer has none).
std::vector<client::ObjectPtr> controlled_by(const client::Informer& informer,
                                             const nlohmann::json& owner);
// The objects of the owner's namespace that nothing controls (the same way).
std::vector<client::ObjectPtr> orphans_in(const client::Informer& informer, const std::string& ns);
// The same two in the informer's cached form (no trees made; object_reads.h reads them).
std::vector<client::Informer::Cached> cached_controlled_by(const client::Informer& informer,
                                                           const nlohmann::json& owner);
std::vector<client::Informer::Cached> cached_orphans_in(const client::Informer& informer,
                                                        const std::string& ns);

}  // namespace k3c::controllers
