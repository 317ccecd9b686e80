#include "runtime/runtime_role.h"

#include "core/log.h"

namespace k3c::runtime {

Status RuntimeRole::start() {
  auto logger = log::for_role("runtime");
  auto opened = LinuxRuntime::open(config_);
  if (!opened.is_ok()) return opened.status();
  runtime_ = std::move(*opened);
  // One bad tarball is logged and skipped, never a reason not to start (as k3s).
  for (const AirgapResult& result :
       import_airgap_images(runtime_->images(), config_.data_dir + "/agent/images")) {
    if (result.status.is_ok()) {
      for (const std::string& ref : result.references)
        logger->info("imported {} from {}", ref, result.file);
    } else {
      logger->warn("airgap image {} not imported: {}", result.file, result.status.message());
    }
  }
  return Status::ok();
}

}  // namespace k3c::runtime
