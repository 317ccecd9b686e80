// Metadata changes as merge patches with the cached resourceVersion as precondition.
#include "roles/controllers/common/metadata_writes.h"

#include <catch2/catch.hpp>

#include "roles/controllers/testing/controller_harness.h"

namespace k3c::controllers {
namespace {

const char* kWritesPods = "/api/v1/namespaces/default/pods";

TEST_CASE("patch_metadata changes only the named members, and only of the version read") {
  testing::ControllerHarness h;
  h.api.seed(kWritesPods, {{"metadata",
                            {{"name", "p"},
                             {"namespace", "default"},
                             {"labels", {{"a", "1"}}},
                             {"ownerReferences", json::array({{{"uid", "u1"}}, {{"uid", "u2"}}})}}},
                           {"spec", {{"volumes", json::array({{{"name", "v"}}})}}}});
  json cached = h.api.object(std::string(kWritesPods) + "/p");
  cached["spec"].erase("volumes");  // as a trimmed cache holds it: never written back
  auto written =
      patch_metadata(h.ctx.client, client::resources::kPods, cached,
                     {{"ownerReferences", refs_without(cached, "u1")}, {"labels", {{"b", "2"}}}});
  REQUIRE(written.is_ok());
  json stored = h.api.object(std::string(kWritesPods) + "/p");
  CHECK(stored["metadata"]["ownerReferences"] == json::array({{{"uid", "u2"}}}));
  CHECK(stored["metadata"]["labels"] == json{{"a", "1"}, {"b", "2"}});
  CHECK(stored["spec"]["volumes"] == json::array({{{"name", "v"}}}));
  CHECK(h.api.actions().back().verb == "PATCH");
  // The cached version is stale now: a Conflict, as an update of it would be.
  auto stale = patch_metadata(h.ctx.client, client::resources::kPods, cached,
                              {{"ownerReferences", nullptr}});
  REQUIRE_FALSE(stale.is_ok());
  CHECK(stale.status().code() == Code::kConflict);
  // The last reference released: the list goes.
  CHECK(refs_without(stored, "u2").is_null());
  REQUIRE(patch_metadata(h.ctx.client, client::resources::kPods, stored,
                         {{"ownerReferences", refs_without(stored, "u2")}})
              .is_ok());
  CHECK_FALSE(
      h.api.object(std::string(kWritesPods) + "/p")["metadata"].contains("ownerReferences"));
}

}  // namespace
}  // namespace k3c::controllers
