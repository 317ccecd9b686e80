// claim() over an informer with the controller-uid index and over one without it (the scan
// of the namespace): the same candidates, the same outcome.
#include "roles/controllers/common/claim.h"

#include <catch2/catch.hpp>
#include <set>

#include "api/object_selectors.h"
#include "roles/controllers/testing/controller_harness.h"

namespace k3c::controllers {
namespace {

using testing::ControllerHarness;

json claim_pod(const std::string& name, const std::string& app, const std::string& owner_uid = "",
               const std::string& ns = "default") {
  json p = {{"metadata", {{"name", name}, {"namespace", ns}, {"labels", {{"app", app}}}}}};
  if (!owner_uid.empty()) {
    p["metadata"]["ownerReferences"] = {{{"apiVersion", "apps/v1"},
                                         {"kind", "ReplicaSet"},
                                         {"name", "x"},
                                         {"uid", owner_uid},
                                         {"controller", true}}};
  }
  return p;
}

std::set<std::string> claimed_names(bool indexed, bool owner_deleting = false) {
  ControllerHarness h;
  const char* pods = "/api/v1/namespaces/default/pods";
  // The owner as the API has it: adoption rechecks it there, not in a cache.
  json stored_owner = {
      {"apiVersion", "apps/v1"},
      {"kind", "ReplicaSet"},
      {"metadata", {{"name", "web"}, {"namespace", "default"}, {"uid", "uid-web"}}}};
  if (owner_deleting) {
    stored_owner["metadata"]["deletionTimestamp"] = "2026-12-02T07:00:00Z";
    stored_owner["metadata"]["finalizers"] = {"orphan"};
  }
  h.api.seed("/apis/apps/v1/namespaces/default/replicasets", stored_owner);
  h.api.seed(pods, claim_pod("mine", "web", "uid-web"));
  h.api.seed(pods, claim_pod("orphan", "web"));
  h.api.seed(pods, claim_pod("theirs", "web", "uid-db"));
  h.api.seed(pods, claim_pod("unselected", "db"));
  h.api.seed("/api/v1/namespaces/other/pods", claim_pod("far", "web", "", "other"));
  auto& informer = h.informers.informer(client::resources::kPods);
  if (indexed) index_by_controller(informer);
  h.informers.start_all();
  REQUIRE(h.informers.wait_synced(std::chrono::seconds(5)));
  json owner = {{"metadata", {{"name", "web"}, {"namespace", "default"}, {"uid", "uid-web"}}}};
  auto selector = api::label_selector_of({{"matchLabels", {{"app", "web"}}}});
  auto owned = claim(h.client, {client::resources::kPods, "apps/v1", "ReplicaSet"}, owner, selector,
                     informer);
  REQUIRE(owned.is_ok());
  std::set<std::string> names;
  for (const auto& p : *owned) names.insert(name_of(*p));
  return names;
}

TEST_CASE("claim finds the same pods with and without the controller-uid index") {
  const std::set<std::string> expected = {"mine", "orphan"};
  CHECK(claimed_names(true) == expected);
  CHECK(claimed_names(false) == expected);
}

TEST_CASE("an owner whose deletion the cache has not seen adopts nothing, keeps its own") {
  // The garbage collector may have just orphaned these for the deleted owner: adopting them
  // back would leave them with a missing owner, and the collector would delete them.
  CHECK(claimed_names(true, true) == std::set<std::string>{"mine"});
}

TEST_CASE("the controller-uid index files pods under their controller or their namespace") {
  ControllerHarness h;
  h.api.seed("/api/v1/namespaces/default/pods", claim_pod("mine", "web", "uid-web"));
  h.api.seed("/api/v1/namespaces/default/pods", claim_pod("orphan", "web"));
  auto& informer = h.informers.informer(client::resources::kPods);
  index_by_controller(informer);
  h.informers.start_all();
  REQUIRE(h.informers.wait_synced(std::chrono::seconds(5)));
  json owner = {{"metadata", {{"name", "web"}, {"namespace", "default"}, {"uid", "uid-web"}}}};
  auto controlled = controlled_by(informer, owner);
  REQUIRE(controlled.size() == 1);
  CHECK(name_of(*controlled[0]) == "mine");
  auto orphans = orphans_in(informer, "default");
  REQUIRE(orphans.size() == 1);
  CHECK(name_of(*orphans[0]) == "orphan");
  CHECK(orphans_in(informer, "other").empty());
}

}  // namespace
}  // namespace k3c::controllers
