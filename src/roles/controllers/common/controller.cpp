#include "roles/controllers/common/controller.h"

#include "core/log.h"

namespace k3c::controllers {

Controller::~Controller() { stop(); }

void Controller::run(int workers) {
  for (int i = 0; i < workers; ++i) workers_.emplace_back([this] { work(); });
}

void Controller::stop() {
  queue_.shut_down();
  for (auto& t : workers_) {
    if (t.joinable()) t.join();
  }
  workers_.clear();
}

void Controller::work() {
  auto logger = log::for_role("controller-manager");
  while (auto key = queue_.get()) {
    Status s;
    try {
      s = reconcile(*key);
    } catch (const std::exception& e) {
      // A malformed object must not take the process down: log it and retry with backoff.
      s = error(Code::kInternal, e.what());
    }
    if (s.is_ok()) {
      queue_.forget(*key);
    } else {
      // Conflicts are the normal race with other writers: retry quietly.
      if (s.code() != Code::kConflict) {
        logger->warn("{}: {}: {}", name_, *key, s.message());
      }
      queue_.add_rate_limited(*key);
    }
    queue_.done(*key);
  }
}

}  // namespace k3c::controllers
