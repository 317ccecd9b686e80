// An informer: a local cache of one resource kept current by list + watch (upstream's
// reflector + indexer). It lists in pages, watches from the list's resourceVersion with
// bookmarks, resumes a watch that ends from the last version it saw, relists when the
// server answers 410 (too old), and backs off on errors. Handlers learn of every change;
// indexes answer "which pods does this ReplicaSet own" without a scan.
//
// Objects are kept without metadata.managedFields (controllers never read them; they are
// a large share of an object), and trimmed further by the informer's CacheTransform if it has
// one (cache_transforms.h). Informers given the process's SharedObjects (shared_objects.h)
// keep one tree per object version between them and parse an event only when none of them has.
// A transform may ask for compact caching: each object is then kept as a cjson::Document (about
// a third of a tree), and get/list/by_index and the handlers' old objects are trees made from
// it on each call (a few µs a pod), outside the cache's mutex.
//
// Threads: one thread per informer runs the list/watch loop and calls the handlers (which
// must be quick: they queue keys). get/list/by_index from any thread.
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "client/cache_transforms.h"
#include "client/client.h"
#include "client/shared_objects.h"
#include "core/compact_json.h"
#include "core/lifecycle.h"

namespace k3c::client {

using ObjectPtr = std::shared_ptr<const nlohmann::json>;

// "namespace/name", or "name" for cluster-scoped objects: the key controllers queue.
std::string key_of(const nlohmann::json& object);
// Splits a key back; the namespace is "" for cluster-scoped keys.
std::pair<std::string, std::string> split_key(std::string_view key);

struct EventHandler {
  std::function<void(const ObjectPtr&)> on_add;
  std::function<void(const ObjectPtr& old, const ObjectPtr& now)> on_update;
  // The last state known (a relist can miss the final update).
  std::function<void(const ObjectPtr&)> on_delete;
};

using IndexFunc = std::function<std::vector<std::string>(const nlohmann::json&)>;

class Informer {
 public:
  // `shared`: the trees of the process's other informers (null: this informer's own);
  // `transform`: applied to every object before it is cached (a trimmed tree is shared only
  // between informers whose transforms have the same name; a whole one with every informer).
  Informer(Client& client, ResourceId resource, ListOptions selectors = {},
           std::shared_ptr<SharedObjects> shared = nullptr, CacheTransform transform = {});
  ~Informer();

  // Before start().
  void add_handler(EventHandler handler);
  void add_index(const std::string& name, IndexFunc index);

  void start();
  void stop();
  bool has_synced() const { return synced_.is_set(); }
  bool wait_synced(std::chrono::nanoseconds timeout) const { return synced_.wait_for(timeout); }
  const ResourceId& resource() const { return resource_; }

  // What the cache keeps per key: the tree, or for a compact informer the document.
  struct Cached {
    ObjectPtr tree;
    std::shared_ptr<const cjson::Document> doc;
    explicit operator bool() const { return tree || doc; }
  };
  // The cached form itself, without making trees: for syncs that read many objects
  // (controllers/common/object_reads.h reads either form).
  std::vector<Cached> cached_by_index(const std::string& index, std::string_view value) const;
  std::vector<Cached> cached_list() const;
  // The tree of a cached object (made from the document for a compact informer).
  static ObjectPtr tree_of(const Cached& cached);
  // The trees of cached objects of this informer, taking those still filed in the shared
  // objects rather than making them again.
  std::vector<ObjectPtr> trees_of(const std::vector<Cached>& cached) const;

  ObjectPtr get(std::string_view key) const;
  // The cached form of one object (empty when absent), without making its tree.
  Cached cached(std::string_view key) const;
  bool contains(std::string_view key) const { return static_cast<bool>(cached(key)); }
  std::vector<ObjectPtr> list() const;
  std::vector<ObjectPtr> in_namespace(std::string_view ns) const;
  std::vector<ObjectPtr> by_index(const std::string& index, std::string_view value) const;
  // Whether add_index(name) was called (always true for "namespace").
  bool has_index(const std::string& name) const;
  size_t size() const;

 private:
  enum class WatchEnd { kResume, kRelist, kStopped };
  void run();
  void run_once(bool& need_list, std::chrono::milliseconds& backoff);
  Status relist();
  WatchEnd watch_once();
  // A freshly parsed object, trimmed and (with shared_) exchanged for the shared tree.
  ObjectPtr filed(nlohmann::json object);
  // A watch line's event without parsing it, when shared_ has its object; false otherwise.
  bool apply_shared(std::string_view line);
  void apply(std::string_view type, ObjectPtr object);
  void put(ObjectPtr object);
  void erase(const std::string& key);
  void index_locked(const std::string& key, const nlohmann::json* old, const nlohmann::json* now);
  Cached cached_form(const ObjectPtr& object) const;
  // The tree of a version this informer cached: one filed in shared_ while some informer
  // still holds it, else made from the document.
  ObjectPtr tree_of_filed(const Cached& cached) const;
  // Keeps `tree` among the recent trees; returns it.
  ObjectPtr remember(ObjectPtr tree);
  std::string selector_query() const;
  void sleep_for(std::chrono::milliseconds d);

  Client& client_;
  const ResourceId resource_;
  const ListOptions selectors_;
  const std::shared_ptr<SharedObjects> shared_;
  const CacheTransform transform_;
  // The shared trees' keys: resource_.path() for whole objects, with the transform's name
  // appended for trimmed ones (empty without a transform).
  const std::string path_;
  const std::string trimmed_path_;
  std::vector<EventHandler> handlers_;
  std::map<std::string, IndexFunc> index_funcs_;

  mutable std::mutex mu_;
  std::unordered_map<std::string, Cached> objects_;
  // index name -> value -> keys
  std::map<std::string, std::map<std::string, std::set<std::string>, std::less<>>> indexes_;
  std::string resource_version_;  // last seen (informer thread only)
  // A compact informer's last trees (informer thread only): kept a moment so that the other
  // informers handling the same events, and this one's next update of the object, find the
  // tree filed in shared_ instead of making it again from the document.
  std::deque<ObjectPtr> recent_trees_;

  ReadinessLatch synced_;
  std::atomic<bool> stopping_{false};
  std::mutex watch_mu_;
  WatchLines* current_watch_ = nullptr;  // guarded by watch_mu_
  std::mutex sleep_mu_;
  std::condition_variable sleep_cv_;
  std::thread thread_;
};

}  // namespace k3c::client
