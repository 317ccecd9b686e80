// The kubelet's side of the Node object, against the API: registers the node (creates it, or
// brings the labels it owns up to date on a node that exists), writes its status when it
// changed or is due (node_status.h decides), and renews its Lease in kube-node-lease. The
// KubeletRole calls these from its one node thread, on its timers.
//
// Threads: one caller at a time (the role's node thread); not thread-safe.
#pragma once

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "client/client.h"
#include "client/event_recorder.h"
#include "core/clock.h"
#include "core/status.h"
#include "roles/kubelet/kubelet_settings.h"
#include "roles/kubelet/machine_probe.h"
#include "roles/kubelet/node_status.h"
#include "runtime/runtime_service.h"

namespace k3c::kubelet {

class NodeReporter {
 public:
  // `images` and `events` may be null. Everything passed in outlives the reporter.
  NodeReporter(client::Client& client, NodeIdentity identity, const MachineProbe& probe,
               runtime::ImageService* images, client::EventRecorder* events,
               const KubeletSettings& settings, const Clock& clock);

  // Before the first sync: where the pressure conditions come from (the eviction manager;
  // unset: no pressure). Called on the node thread; must be thread-safe.
  void set_pressure_source(std::function<NodePressure()> pressure) {
    pressure_ = std::move(pressure);
  }

  // Creates the Node, or reconciles the labels of the one that exists. After it, the node's
  // uid is known (for the Lease's owner).
  Status register_node();
  // Computes the status and writes it through nodes/<name>/status when it changed or the
  // report frequency passed; retries a conflicting write with a fresh read (5 tries, as
  // upstream). kNotFound when the Node is gone (the caller registers again).
  Status sync_status();
  // Renews (or creates) kube-node-lease/<node>.
  Status renew_lease();

  // An event about the node (e.g. "Starting", "Starting kubelet."). Thread-safe.
  void record_event(const std::string& reason, const std::string& message,
                    const std::string& type = "Normal");

  const std::string& node_name() const { return identity_.name; }

 private:
  std::vector<runtime::ImageSummary> list_images() const;
  Status write_status(nlohmann::json node);
  void record_transitions(const nlohmann::json& previous, const nlohmann::json& next);

  client::Client& client_;
  const NodeIdentity identity_;
  const MachineProbe& probe_;
  runtime::ImageService* const images_;
  client::EventRecorder* const events_;
  const KubeletSettings settings_;
  const Clock& clock_;
  std::function<NodePressure()> pressure_;
  std::string node_uid_;
  std::optional<Clock::TimePoint> last_report_;
  nlohmann::json lease_;  // the Lease as last written; null before the first
};

// The events upstream's kubelet records about its node when a condition changes: a pressure
// condition that appears or flips ("NodeHasSufficientMemory", ...), Ready flipping
// ("NodeReady" / "NodeNotReady"). Pure, for tests.
std::vector<std::string> condition_events(const nlohmann::json& previous,
                                          const nlohmann::json& next);

}  // namespace k3c::kubelet
