// The controllers' shared informers: one cache per resource, however many controllers read
// it (upstream's SharedInformerFactory).
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
  explicit InformerSet(client::Client& client) : client_(client) {}
  ~InformerSet() { stop_all(); }

  client::Informer& informer(const client::ResourceId& resource);
  void start_all();
  // True when every informer listed within `timeout`.
  bool wait_synced(std::chrono::nanoseconds timeout) const;
  void stop_all();

 private:
  client::Client& client_;
  std::map<std::string, std::unique_ptr<client::Informer>> informers_;
};

// The pods informer's index by spec.nodeName ("which pods are bound to node X"), added by
// every controller that asks it (adding it twice is harmless).
inline constexpr const char* kPodsByNodeIndex = "spec.nodeName";
void index_pods_by_node(client::Informer& pods);

}  // namespace k3c::controllers
