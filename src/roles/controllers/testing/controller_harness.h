// What a controller unit test runs a controller in: the fake API (fake_api.h) behind the real
// in-process client, shared informers and event recorder, and a context over them.
// Construct the controller with `ctx`, then start(controller); check FakeApi::actions().
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
  InformerSet informers{client};
  EventRecorder events{client, "test"};
  ControllerContext ctx{client, informers, events, SystemClock::instance(), ""};

  ~ControllerHarness() {
    events.stop();
    informers.stop_all();
  }
  // Starts the informers the controller registered, waits for them, then its worker.
  bool start(Controller& controller) {
    informers.start_all();
    if (!informers.wait_synced(std::chrono::seconds(5))) return false;
    controller.run(1);
    return true;
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
