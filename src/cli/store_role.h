// The "store" role of `k3c server`: opens the datastore (src/store) on start and closes it on
// stop. Later roles (the apiserver) reach the store through it once up() is set.
#pragma once

#include <memory>
#include <mutex>

#include "cli/config.h"
#include "core/lifecycle.h"
#include "store/store.h"

namespace k3c::cli {

// The store's options for a server config: the SQLite file and its sync mode.
store::Options store_options(const ServerConfig& config);

// Owns the open Store between start() and stop(). Threads: start() and stop() from the
// RoleRunner; store(), ready() and up() from any thread.
class StoreRole final : public Role {
 public:
  explicit StoreRole(store::Options options) : options_(std::move(options)) {}

  std::string_view name() const override { return "store"; }
  Status start() override;
  void stop() override;
  bool ready() const override;

  // The open store, or nullptr before start() and after stop(). Valid until stop().
  store::Store* store() const;
  // Set once the store is open.
  const ReadinessLatch& up() const { return up_; }

 private:
  const store::Options options_;
  mutable std::mutex mu_;
  std::unique_ptr<store::Store> store_;  // guarded by mu_
  ReadinessLatch up_;
};

}  // namespace k3c::cli
