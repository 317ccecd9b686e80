// A fake API for controller unit tests: objects in memory, served through the in-process
// client's handler seam (the real client, informers and work queues run against it). It
// answers GET (one object or a list, cluster-wide or per namespace), watch (events pushed as
// writes happen), POST (uid, resourceVersion and generateName filled in; ?dryRun=All stores
// nothing), PUT (also subresources) and PATCH (merge, plus the strategic
// $deleteFromPrimitiveList of metadata lists), both with the resourceVersion precondition,
// and DELETE, and records every write as "VERB path" so that a
// test can check what a reconcile did. No validation, admission or defaulting: the
// apiserver's own tests cover those.
//
// Thread-safety: any thread (informers, workers and the test at once).
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "http/http.h"

namespace k3c::controllers::testing {

class FakeApi {
 public:
  // Stores `object` in the collection `collection_path` ("/api/v1/nodes",
  // "/apis/apps/v1/namespaces/ns/replicasets") as if created there.
  void seed(const std::string& collection_path, nlohmann::json object);
  http::Response handle(http::Request& request);
  // Writes so far ("PATCH /api/v1/nodes/b", "PUT .../status"), in order; with bodies.
  struct Action {
    std::string verb;
    std::string path;
    nlohmann::json body;
  };
  std::vector<Action> actions() const;
  // The stored object at `path` (null when absent).
  nlohmann::json object(const std::string& path) const;
  // Watchers of `resource` ("/apis/batch/v1/jobs", every namespace) get no events until
  // release(): an informer whose cache lags behind writes other informers already show.
  void hold(const std::string& resource);
  void release(const std::string& resource);

 private:
  class Watch;
  struct Parsed;
  void notify(const std::string& type, const std::string& collection, const nlohmann::json& o);

  mutable std::mutex mu_;
  int64_t revision_ = 1;
  std::map<std::string, nlohmann::json> objects_;  // object path -> object
  std::vector<Action> actions_;
  std::vector<std::pair<std::string, std::shared_ptr<Watch>>> watches_;  // collection prefix
  std::map<std::string, std::vector<std::pair<std::shared_ptr<Watch>, std::string>>> held_;
};

}  // namespace k3c::controllers::testing
