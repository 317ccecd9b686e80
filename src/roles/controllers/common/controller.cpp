#include "roles/controllers/common/controller.h"

#include "core/log.h"

namespace k3c::controllers {

Controller::~Controller() { stop(); }

void Controller::process(const std::string& key) {
  auto logger = log::for_role("controller-manager");
  Status s;
  try {
    s = reconcile(key);
  } catch (const std::exception& e) {
    // A malformed object must not take the process down: log it and retry with backoff.
    s = error(Code::kInternal, e.what());
  }
  if (s.is_ok()) {
    queue_.forget(key);
  } else {
    // Conflicts are the normal race with other writers: retry quietly.
    if (s.code() != Code::kConflict) {
      logger->warn("{}: {}: {}", name_, key, s.message());
    }
    queue_.add_rate_limited(key);
  }
  queue_.done(key);
}

}  // namespace k3c::controllers
