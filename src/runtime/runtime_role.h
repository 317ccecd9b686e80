// The "runtime" role of a k3c agent: opens the in-tree runtime (image store, sandboxes,
// containers) under the data dir and imports the airgap images (<data-dir>/agent/images) at
// start, as k3s does. It owns no threads: containers live in their shims, so stopping the
// role (or the whole process) leaves them running, to be re-adopted on the next start.
#pragma once

#include <memory>
#include <string>

#include "core/lifecycle.h"
#include "runtime/linux_runtime.h"

namespace k3c::runtime {

class RuntimeRole final : public Role {
 public:
  explicit RuntimeRole(LinuxRuntimeConfig config) : config_(std::move(config)) {}

  std::string_view name() const override { return "runtime"; }
  Status start() override;
  void stop() override {}
  bool ready() const override { return runtime_ != nullptr; }

  // Valid once started; lives as long as the role.
  LinuxRuntime* runtime() const { return runtime_.get(); }

 private:
  const LinuxRuntimeConfig config_;
  std::unique_ptr<LinuxRuntime> runtime_;
};

}  // namespace k3c::runtime
