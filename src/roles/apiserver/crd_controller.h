// The CRD controllers upstream's apiextensions-apiserver runs, as one level-triggered loop
// inside the apiserver role:
//  - naming: accepts a CRD's names unless another CRD of the group holds them
//    (status.acceptedNames, condition NamesAccepted with upstream's reasons);
//  - establishing: condition Established once the names are accepted;
//  - serving: every CRD version with accepted names becomes a served resource (registry,
//    discovery, OpenAPI) before Established is written, so a client that waited for it finds
//    the resource;
//  - finalizing: a deleted CRD (it carries customresourcecleanup.apiextensions.k8s.io, added
//    by DELETE) gets condition Terminating, its objects are deleted, then the finalizer goes
//    and with it the CRD and its served resources.
//
// Threads: start() and stop() from the apiserver role; the loop runs on its own thread and
// is the only writer of CRD statuses and of the served API. mu_ guards poked_ and stopping_.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "core/clock.h"
#include "roles/apiserver/rest.h"
#include "roles/apiserver/served_api.h"
#include "roles/apiserver/watch_cache.h"
#include "store/store.h"

namespace k3c::apiserver {

class CrdController {
 public:
  CrdController(store::Store& store, WatchCache& cache, ServedApi& api, Rest& rest,
                const Clock& clock);
  ~CrdController();

  // Serves the CRDs already stored (one pass, so that a restarted server serves them before
  // it reports ready), then follows changes on the controller's thread.
  Status start();
  void stop();

  // One pass over every CRD. True when something is left to do soon (a write lost a race,
  // objects of a deleted CRD remain).
  bool reconcile();

 private:
  void run();
  void poke();
  Status watch();

  store::Store& store_;
  WatchCache& cache_;
  ServedApi& api_;
  Rest& rest_;
  const Clock& clock_;
  std::unique_ptr<CacheWatcher> watch_;

  std::mutex mu_;
  std::condition_variable wake_;
  bool poked_ = false;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace k3c::apiserver
