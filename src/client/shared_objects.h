// The parsed objects the informers of one process share: several informers on one resource
// (the controllers' pods and the scheduler's pods, say) each receive every event, and without
// this each would parse it into a tree of its own and keep that tree. An object is identified by
// its resource's path and its resourceVersion (the store revision of the write that made it, so
// one version of one object, the same bytes for every watcher of that resource and version);
// the first informer to parse it files the tree here, the others find it (skipping the parse,
// event_peek.h) or hand theirs in and get the filed one back, so one tree serves all.
//
// Informers that cache compact documents (cjson, core/compact_json.h) rather than trees share
// those the same way, in a table of their own: the first to file a version builds the document,
// the others take it (and skip the parse of the event, making its tree from the document).
//
// Only weak references are held: a tree or document lives as long as some informer caches it.
// Entries whose tree is gone are swept once their count doubles, so each table stays
// proportional to what is alive.
//
// Threads: any; one mutex guards both tables.
#pragma once

#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_map>

#include "core/compact_json.h"

namespace k3c::client {

class SharedObjects {
 public:
  using Ptr = std::shared_ptr<const nlohmann::json>;
  using DocPtr = std::shared_ptr<const cjson::Document>;

  // The tree filed for that resource and version, or null.
  Ptr find(std::string_view resource_path, std::string_view resource_version) const;
  // The tree filed for `object`'s resource and version, filing `object` when none is
  // (an object without a resourceVersion is returned as it is).
  Ptr share(std::string_view resource_path, Ptr object);
  // The document filed for that resource and version, or null.
  DocPtr find_document(std::string_view resource_path, std::string_view resource_version) const;
  // The document filed for `object`'s resource and version, filing one made from `object` when
  // none is (an object without a resourceVersion gets a document of its own).
  DocPtr share_document(std::string_view resource_path, const nlohmann::json& object);
  // Entries (live or not yet swept), for tests.
  size_t size() const;

 private:
  template <typename T>
  struct Table {
    std::unordered_map<std::string, std::weak_ptr<const T>> entries;
    size_t sweep_at = 1024;
  };
  static std::string key(std::string_view resource_path, std::string_view resource_version);
  template <typename T>
  std::shared_ptr<const T> find_in(const Table<T>& table, std::string_view resource_path,
                                   std::string_view resource_version) const;
  template <typename T>
  static void file_locked(Table<T>& table, std::string key, std::shared_ptr<const T>& object);

  mutable std::mutex mu_;
  Table<nlohmann::json> objects_;     // guarded by mu_
  Table<cjson::Document> documents_;  // guarded by mu_
};

}  // namespace k3c::client
