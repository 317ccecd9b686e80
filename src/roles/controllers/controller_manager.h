// The controller-manager role: the controllers of controllers/* in one role, talking to the
// API through the in-process client as system:kube-controller-manager. Only the holder of
// the kube-system/kube-controller-manager Lease runs them (with one server it wins at once).
//
// Threads: start()/stop() from the RoleRunner. Controllers run on their own worker threads,
// informers on one thread each.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "client/cache_transforms.h"
#include "core/clock.h"
#include "core/lifecycle.h"
#include "http/http.h"
#include "roles/controllers/controller_settings.h"

namespace k3c::client {
class Client;
class EventRecorder;
class LeadershipRun;
class SharedObjects;
}  // namespace k3c::client

namespace k3c::controllers {

class Controller;
class InformerSet;
struct ControllerContext;

struct ControllerManagerConfig {
  // The apiserver's handler chain, available once the apiserver role is up.
  std::function<http::Response(http::Request&)> handler;
  std::function<std::string()> root_ca_pem;
  std::string identity;  // leader election: <host>_<uuid>
  ControllerManagerSettings settings;
  // The parsed objects the process's informers share (null: the controllers' own).
  std::shared_ptr<client::SharedObjects> shared_objects;
  // Applied to the pods the controllers cache (none: pods cached whole); the server gives
  // client::control_plane_pods (cache_transforms.h), the same as the scheduler's.
  client::CacheTransform pod_transform;
};

class ControllerManagerRole final : public Role {
 public:
  explicit ControllerManagerRole(ControllerManagerConfig config,
                                 const Clock& clock = SystemClock::instance());
  ~ControllerManagerRole() override;

  std::string_view name() const override { return "controller-manager"; }
  Status start() override;
  void stop() override;
  bool ready() const override { return ready_; }

 private:
  void start_controllers();
  void stop_controllers();

  const ControllerManagerConfig config_;
  const Clock& clock_;
  std::unique_ptr<client::Client> client_;
  std::unique_ptr<client::LeadershipRun> leadership_;
  std::mutex mu_;                // guards the running set below
  std::unique_ptr<InformerSet> informers_;
  std::unique_ptr<client::EventRecorder> events_;
  std::unique_ptr<ControllerContext> context_;
  std::vector<std::unique_ptr<Controller>> controllers_;
  std::atomic<bool> ready_{false};
};

}  // namespace k3c::controllers
