// What every controller gets: the API client, the shared informers, the event recorder,
// the clock and the settings (controller_settings.h).
#pragma once

#include <string>

#include "client/client.h"
#include "client/event_recorder.h"
#include "core/clock.h"
#include "core/selector.h"
#include "roles/controllers/common/informer_set.h"
#include "roles/controllers/common/objects.h"

namespace k3c::controllers {

using client::EventRecorder;

struct ControllerContext {
  client::Client& client;
  InformerSet& informers;
  EventRecorder& events;
  const Clock& clock;
  std::string root_ca_pem;  // the cluster CA, published as kube-root-ca.crt

  std::string now() const;  // RFC 3339, for timestamps in status
};

}  // namespace k3c::controllers
