// ReplicaSetController's reconcile against the fake API: what it claims (through the pods
// informer's controller index), releases, leaves alone and creates.
#include "roles/controllers/replicaset/replica_set_controller.h"

#include <catch2/catch.hpp>

#include "roles/controllers/testing/controller_harness.h"

namespace k3c::controllers {
namespace {

using testing::ControllerHarness;

const char* kReplicaPods = "/api/v1/namespaces/default/pods";

json controller_ref(const std::string& name) {
  return {{"apiVersion", "apps/v1"},
          {"kind", "ReplicaSet"},
          {"name", name},
          {"uid", "uid-" + name},
          {"controller", true}};
}

json replica_pod(const std::string& name, const std::string& app, const std::string& owner = "",
                 const std::string& ns = "default") {
  json p = {{"metadata", {{"name", name}, {"namespace", ns}, {"labels", {{"app", app}}}}},
            {"status", {{"phase", "Running"}}}};
  if (!owner.empty()) p["metadata"]["ownerReferences"] = json::array({controller_ref(owner)});
  return p;
}

json replica_set(const std::string& name, int replicas) {
  return {
      {"metadata", {{"name", name}, {"namespace", "default"}, {"generation", 1}}},
      {"spec",
       {{"replicas", replicas},
        {"selector", {{"matchLabels", {{"app", "web"}}}}},
        {"template", {{"metadata", {{"labels", {{"app", "web"}}}}}, {"spec", json::object()}}}}}};
}

int count(const ControllerHarness& h, const std::string& verb, const std::string& path) {
  int n = 0;
  for (const auto& a : h.api.actions()) n += a.verb == verb && a.path == path;
  return n;
}

TEST_CASE(
    "a replica set claims its own pods and matching orphans, releases strays, creates the rest") {
  ControllerHarness h;
  h.api.seed("/apis/apps/v1/namespaces/default/replicasets", replica_set("web", 4));
  h.api.seed(kReplicaPods, replica_pod("mine", "web", "web"));
  h.api.seed(kReplicaPods, replica_pod("stray", "other", "web"));  // ours, but no longer selected
  h.api.seed(kReplicaPods, replica_pod("orphan", "web"));          // adopted
  h.api.seed(kReplicaPods, replica_pod("theirs", "web", "db"));  // another controller's: left alone
  h.api.seed(kReplicaPods, replica_pod("unselected", "other"));  // an orphan we do not select
  h.api.seed("/api/v1/namespaces/elsewhere/pods", replica_pod("far", "web", "", "elsewhere"));
  ReplicaSetController controller(h.ctx, replica_set_flavour());
  auto running = h.start(controller);
  REQUIRE(running);
  // 4 replicas: mine + the adopted orphan + 2 created.
  bool created = ControllerHarness::eventually([&] { return count(h, "POST", kReplicaPods) == 2; });
  std::string writes;
  for (const auto& a : h.api.actions()) writes += a.verb + " " + a.path + "\n";
  INFO("the writes:\n" << writes);
  REQUIRE(created);
  REQUIRE(ControllerHarness::eventually([&] {
    json rs = h.api.object("/apis/apps/v1/namespaces/default/replicasets/web");
    return rs.value("status", json::object()).value("replicas", 0) == 4;
  }));
  // Adopted and released by merge patches of the ownerReferences (cached pods are trimmed:
  // never PUT back whole). A sync that runs before the pods' informer has seen the first
  // patches patches again (with the resourceVersion it saw: a conflict), as upstream's would.
  CHECK(count(h, "PATCH", std::string(kReplicaPods) + "/orphan") >= 1);
  CHECK(count(h, "PUT", std::string(kReplicaPods) + "/orphan") == 0);
  json adopted = h.api.object(std::string(kReplicaPods) + "/orphan");
  CHECK(adopted["metadata"]["ownerReferences"][0]["uid"] == "uid-web");
  CHECK(count(h, "PATCH", std::string(kReplicaPods) + "/stray") >= 1);
  CHECK(count(h, "PUT", std::string(kReplicaPods) + "/stray") == 0);
  CHECK_FALSE(
      h.api.object(std::string(kReplicaPods) + "/stray")["metadata"].contains("ownerReferences"));
  CHECK(count(h, "PUT", std::string(kReplicaPods) + "/theirs") +
            count(h, "PATCH", std::string(kReplicaPods) + "/theirs") ==
        0);
  CHECK(count(h, "PUT", std::string(kReplicaPods) + "/unselected") +
            count(h, "PATCH", std::string(kReplicaPods) + "/unselected") ==
        0);
  CHECK(count(h, "PATCH", "/api/v1/namespaces/elsewhere/pods/far") == 0);
  CHECK(count(h, "POST", kReplicaPods) == 2);  // expectations: no second round of creations
}

}  // namespace
}  // namespace k3c::controllers
