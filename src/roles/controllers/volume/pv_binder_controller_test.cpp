// PvBinderController's reconcile against the fake API: the order and content of its writes.
#include "roles/controllers/volume/pv_binder_controller.h"

#include <catch2/catch.hpp>

#include "api/json_fields.h"
#include "roles/controllers/testing/controller_harness.h"

namespace k3c::controllers {
namespace {

using testing::ControllerHarness;

const char* kVolumes = "/api/v1/persistentvolumes";
const char* kClaims = "/api/v1/namespaces/ns/persistentvolumeclaims";

json controller_volume(const std::string& name, const std::string& size) {
  return {{"metadata", {{"name", name}}},
          {"spec",
           {{"capacity", {{"storage", size}}},
            {"accessModes", {"ReadWriteOnce"}},
            {"persistentVolumeReclaimPolicy", "Retain"}}},
          {"status", {{"phase", "Available"}}}};
}

std::string phase(const ControllerHarness& h, const std::string& path) {
  return api::text(api::member(h.api.object(path), "status"), "phase");
}

// The binder's writes to volumes and claims (events left out), as "VERB path".
std::vector<std::string> writes(const ControllerHarness& h) {
  std::vector<std::string> out;
  for (const auto& a : h.api.actions()) {
    if (a.path.find("/events") == std::string::npos) out.push_back(a.verb + " " + a.path);
  }
  return out;
}

TEST_CASE(
    "the binder writes the volume's claimRef, then its phase, then the claim and its status") {
  ControllerHarness h;
  h.api.seed(kVolumes, controller_volume("big", "10Gi"));
  h.api.seed(kVolumes, controller_volume("small", "1Gi"));
  h.api.seed(kClaims, {{"metadata", {{"name", "data"}, {"namespace", "ns"}}},
                       {"spec",
                        {{"storageClassName", ""},
                         {"accessModes", {"ReadWriteOnce"}},
                         {"resources", {{"requests", {{"storage", "500Mi"}}}}}}}});
  PvBinderController controller(h.ctx);
  auto running = h.start(controller);
  REQUIRE(running);
  REQUIRE(ControllerHarness::eventually(
      [&] { return phase(h, std::string(kClaims) + "/data") == "Bound"; }));
  const std::vector<std::string> expected = {
      "PUT /api/v1/persistentvolumes/small", "PUT /api/v1/persistentvolumes/small/status",
      "PUT /api/v1/namespaces/ns/persistentvolumeclaims/data",
      "PUT /api/v1/namespaces/ns/persistentvolumeclaims/data/status"};
  auto done = writes(h);
  REQUIRE(done.size() >= expected.size());
  CHECK(std::vector<std::string>(done.begin(), done.begin() + 4) == expected);

  json small = h.api.object(std::string(kVolumes) + "/small");
  CHECK(small["spec"]["claimRef"]["name"] == "data");
  CHECK(small["spec"]["claimRef"]["uid"] == "uid-data");
  CHECK(small["metadata"]["annotations"]["pv.kubernetes.io/bound-by-controller"] == "yes");
  CHECK(small["status"]["phase"] == "Bound");
  json claim = h.api.object(std::string(kClaims) + "/data");
  CHECK(claim["spec"]["volumeName"] == "small");
  CHECK(claim["metadata"]["annotations"]["pv.kubernetes.io/bind-completed"] == "yes");
  CHECK(claim["status"]["capacity"]["storage"] == "1Gi");
  CHECK(h.api.object(std::string(kVolumes) + "/big")["status"]["phase"] == "Available");
}

TEST_CASE("the binder releases a volume whose claim is gone") {
  ControllerHarness h;
  json bound = controller_volume("orphan", "1Gi");
  bound["spec"]["claimRef"] = {{"namespace", "ns"}, {"name", "gone"}, {"uid", "uid-gone"}};
  bound["status"]["phase"] = "Bound";
  h.api.seed(kVolumes, bound);
  PvBinderController controller(h.ctx);
  auto running = h.start(controller);
  REQUIRE(running);
  CHECK(ControllerHarness::eventually(
      [&] { return phase(h, std::string(kVolumes) + "/orphan") == "Released"; }));
}

}  // namespace
}  // namespace k3c::controllers
