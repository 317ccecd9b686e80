// The store role (see store_role.h).
#include "cli/store_role.h"

#include "core/log.h"

namespace k3c::cli {

store::Options store_options(const ServerConfig& config) {
  store::Options options;
  options.path = config.datastore_path;
  options.sync = config.datastore_sync == DatastoreSync::kFull ? store::SyncMode::kFull
                                                               : store::SyncMode::kNormal;
  return options;
}

Status StoreRole::start() {
  auto opened = store::open(options_);
  if (!opened.is_ok()) return opened.status();
  log::for_role(name())->info("opened {} (sync {}, revision {})", options_.path,
                              options_.sync == store::SyncMode::kFull ? "full" : "normal",
                              (*opened)->current_revision());
  {
    std::lock_guard lock(mu_);
    store_ = std::move(opened).value();
  }
  up_.set();
  return Status::ok();
}

void StoreRole::stop() {
  std::unique_ptr<store::Store> closing;
  {
    std::lock_guard lock(mu_);
    closing = std::move(store_);
  }
  if (closing == nullptr) return;  // never started, or already stopped
  closing->close();
}

bool StoreRole::ready() const {
  std::lock_guard lock(mu_);
  return store_ != nullptr;
}

store::Store* StoreRole::store() const {
  std::lock_guard lock(mu_);
  return store_.get();
}

}  // namespace k3c::cli
