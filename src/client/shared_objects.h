// The parsed objects the informers of one process share: several informers on one resource
// (the controllers' pods and the scheduler's pods, say) each receive every event, and without
// this each would parse it into a tree of its own and keep that tree. An object is identified by
// its resource's path and its resourceVersion (the store revision of the write that made it, so
// one version of one object, the same bytes for every watcher of that resource and version);
// the first informer to parse it files the tree here, the others find it (skipping the parse,
// event_peek.h) or hand theirs in and get the filed one back, so one tree serves all.
//
// Only weak references are held: a tree lives as long as some informer caches it. Entries whose
// tree is gone are swept once their count doubles, so the table stays proportional to the
// trees alive.
//
// Threads: any; one mutex guards the table.
#pragma once

#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_map>

namespace k3c::client {

class SharedObjects {
 public:
  using Ptr = std::shared_ptr<const nlohmann::json>;

  // The tree filed for that resource and version, or null.
  Ptr find(std::string_view resource_path, std::string_view resource_version) const;
  // The tree filed for `object`'s resource and version, filing `object` when none is
  // (an object without a resourceVersion is returned as it is).
  Ptr share(std::string_view resource_path, Ptr object);
  // Entries (live or not yet swept), for tests.
  size_t size() const;

 private:
  static std::string key(std::string_view resource_path, std::string_view resource_version);
  void sweep_locked();

  mutable std::mutex mu_;
  std::unordered_map<std::string, std::weak_ptr<const nlohmann::json>> objects_;  // guarded
  size_t sweep_at_ = 1024;                                                       // guarded
};

}  // namespace k3c::client
