// Startup, liveness and readiness probes, as upstream's prober: each probe of a running
// container runs every periodSeconds (10) after initialDelaySeconds (0) with a timeout of
// timeoutSeconds (1); successThreshold (1) consecutive successes or failureThreshold (3)
// consecutive failures flip its result. Until the startup probe succeeds the others do not
// run and the container is not started; a startup or liveness probe that fails kills the
// container (it is then restarted by its restart policy); readiness decides `ready` (false
// until the first success). Without probes a running container is started and ready.
//
// Probes run inside pod syncs, level-triggered: sync asks ProbeTracker::evaluate() what the
// probes say now, which runs the probes that are due, and comes back when the next is due.
// Kinds: exec (through the runtime), tcpSocket, httpGet and grpc (through ProbeNetwork, from
// the node to the pod IP, or the node for hostNetwork pods).
//
// Thread-safety: a ProbeTracker is shared by every pod worker; its state is guarded by mu_.
// A container instance is evaluated by one worker at a time (its pod's).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/clock.h"
#include "runtime/runtime_service.h"

namespace k3c::kubelet {

struct ProbeOutcome {
  bool success = false;
  std::string output;   // why it failed (or what it said)
  int http_status = 0;  // httpGet: the response's status code; 0 when none came
};

// Where a network probe or hook connects: `host` (the pod IP; the node's for hostNetwork), or,
// for a pod whose sandbox has loopback only (until the pod network is built), 127.0.0.1 inside
// the pod's network namespace through `dial` (the runtime's port-forward connection). Made
// from a host name for the probes and hooks that name their own host.
struct ProbeTarget {
  ProbeTarget(std::string h = "") : host(std::move(h)) {}  // NOLINT(google-explicit-constructor)
  ProbeTarget(const char* h) : host(h) {}                  // NOLINT(google-explicit-constructor)
  std::string host;
  // A connected non-blocking socket to `port`, or -1 with `why` set (Go's dial wording).
  std::function<int(int port, std::string& why)> dial;
};

// A probe's or hook's port (a number, or a name of one of the container's ports); 0 when
// unknown.
int container_port(const nlohmann::json& value, const nlohmann::json& container);

// The network side of probes. The real one connects from the node.
class ProbeNetwork {
 public:
  virtual ~ProbeNetwork() = default;
  virtual ProbeOutcome tcp(const ProbeTarget& target, int port,
                           std::chrono::milliseconds timeout) = 0;
  // Success for a status 200..399, as upstream.
  virtual ProbeOutcome http_get(const std::string& scheme, const ProbeTarget& target, int port,
                                const std::string& path, const nlohmann::json& headers,
                                std::chrono::milliseconds timeout) = 0;
  // grpc.health.v1.Health/Check for `service` ("" = the server as a whole): success for
  // SERVING, upstream's messages otherwise (grpc_health.h).
  virtual ProbeOutcome grpc(const ProbeTarget& target, int port, const std::string& service,
                            std::chrono::milliseconds timeout) = 0;
};

// Sockets from this process's network namespace (HTTP, or HTTPS without verification; gRPC
// over cleartext HTTP/2, probe_network_grpc.cpp).
class SocketProbeNetwork final : public ProbeNetwork {
 public:
  ProbeOutcome tcp(const ProbeTarget& target, int port, std::chrono::milliseconds timeout) override;
  ProbeOutcome http_get(const std::string& scheme, const ProbeTarget& target, int port,
                        const std::string& path, const nlohmann::json& headers,
                        std::chrono::milliseconds timeout) override;
  ProbeOutcome grpc(const ProbeTarget& target, int port, const std::string& service,
                    std::chrono::milliseconds timeout) override;
};

// What the probes of one running container say.
struct ProbeView {
  bool started = true;
  bool ready = true;
  // Set when a startup or liveness probe failed for good: the container must be killed.
  std::optional<std::string> kill_message;  // "Container app failed liveness probe, ..."
  std::optional<Clock::Duration> next_due;  // when a probe runs next
};

struct ProbeEvent {
  std::string reason;   // "Unhealthy"
  std::string message;  // "Readiness probe failed: ..."
};

class ProbeTracker {
 public:
  ProbeTracker(const Clock& clock, runtime::RuntimeService& runtime, ProbeNetwork& network)
      : clock_(clock), runtime_(runtime), network_(network) {}

  // Runs the container's due probes. `target`: where tcp/http/grpc probes connect. Failed
  // probes are appended to `events`.
  ProbeView evaluate(const nlohmann::json& container, const runtime::ContainerStatus& instance,
                     const ProbeTarget& target, std::vector<ProbeEvent>& events);
  // Forgets instances not in `live` (container ids).
  void retain(const std::vector<std::string>& live);
  // Where tcp/http probes go; lifecycle hooks' httpGet uses it too.
  ProbeNetwork& network() { return network_; }

 private:
  struct State {
    bool has_result = false;
    bool result = false;
    int successes = 0, failures = 0;
    runtime::WallTime last_run{};
  };
  ProbeOutcome run(const nlohmann::json& probe, const std::string& container_id,
                   const ProbeTarget& target, const nlohmann::json& container);
  // Runs `probe` if due; returns its result so far (nullopt before the first result).
  std::optional<bool> step(const std::string& kind, const nlohmann::json& probe,
                           const nlohmann::json& container,
                           const runtime::ContainerStatus& instance, const ProbeTarget& target,
                           std::vector<ProbeEvent>& events, std::optional<Clock::Duration>& due);

  const Clock& clock_;
  runtime::RuntimeService& runtime_;
  ProbeNetwork& network_;
  std::mutex mu_;
  std::map<std::string, State> states_;  // "<container id>/<kind>", guarded by mu_
};

}  // namespace k3c::kubelet
