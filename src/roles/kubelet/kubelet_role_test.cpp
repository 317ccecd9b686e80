// KubeletRole: what its start refuses before anything runs.
#include "roles/kubelet/kubelet_role.h"

#include <catch2/catch.hpp>

namespace k3c::kubelet {
namespace {

struct NamedProbe final : MachineProbe {
  std::string hostname;
  MachineInfo probe() const override {
    MachineInfo m;
    m.hostname = hostname;
    return m;
  }
};

TEST_CASE("a host name that is no valid node name stops the start with a clear error") {
  auto probe = std::make_unique<NamedProbe>();
  probe->hostname = "build_box";
  KubeletRole role(KubeletConfig{}, SystemClock::instance(), std::move(probe));
  Status status = role.start();
  CHECK(status.code() == Code::kInvalid);
  CHECK_THAT(status.message(), Catch::StartsWith("node name \"build_box\" (the host name) is not "
                                                 "valid: ") &&
                                   Catch::EndsWith("; pass --node-name"));
  CHECK_FALSE(role.ready());
  role.stop();  // safe after a failed start
}

}  // namespace
}  // namespace k3c::kubelet
