// What a controller unit test runs a controller in: the fake API (fake_api.h) behind the real
// in-process client, shared informers and event recorder, and a context over them.
// Construct the controller with `ctx`, then `auto running = start(controller)`; check
// FakeApi::actions().
#pragma once

#include <chrono>
#include <thread>

#include "client/in_process_client.h"
#include "roles/controllers/common/context.h"
#include "roles/controllers/common/controller.h"
#include "roles/controllers/testing/fake_api.h"

namespace k3c::controllers::testing {

struct ControllerHarness {
  FakeApi api;
  client::InProcessClient client{[this](http::Request& r) { return api.handle(r); }, {}};
  // Pods trimmed as the server caches them: a controller writing a cached pod back whole
  // fails its tests.
  InformerSet informers{client, nullptr, client::control_plane_pods()};
  EventRecorder events{client, "test"};
  ControllerContext ctx{client, informers, events, SystemClock::instance(), ""};

  ~ControllerHarness() {
    events.stop();
    informers.stop_all();
  }
  // Stops the controller's workers when it goes out of scope: before the controller is
  // destroyed, also when a failed REQUIRE leaves the test early.
  class Running {
   public:
    explicit Running(Controller* controller) : controller_(controller) {}
    Running(const Running&) = delete;
    Running& operator=(const Running&) = delete;
    ~Running() {
      if (controller_) controller_->stop();
    }
    explicit operator bool() const { return controller_ != nullptr; }

   private:
    Controller* controller_;
  };
  // Starts the informers the controller registered, waits for them, then its worker; false
  // (as a bool) when the informers did not sync.
  [[nodiscard]] Running start(Controller& controller) {
    informers.start_all();
    if (!informers.wait_synced(std::chrono::seconds(5))) return Running(nullptr);
    controller.run(1);
    return Running(&controller);
  }
  // Polls `done` every 10 ms for up to 5 s.
  template <typename F>
  static bool eventually(F done) {
    for (int i = 0; i < 500; ++i) {
      if (done()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return done();
  }
};

}  // namespace k3c::controllers::testing
