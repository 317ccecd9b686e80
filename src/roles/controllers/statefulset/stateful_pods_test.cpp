#include "roles/controllers/statefulset/stateful_pods.h"

#include <catch2/catch.hpp>

namespace k3c::controllers {
namespace {

json web_set() {
  return {{"metadata", {{"name", "web"}, {"namespace", "prod"}, {"uid", "set-uid"}}},
          {"spec",
           {{"replicas", 3},
            {"serviceName", "nginx"},
            {"selector", {{"matchLabels", {{"app", "web"}}}}},
            {"template",
             {{"metadata", {{"labels", {{"app", "web"}}}}},
              {"spec",
               {{"containers", json::array({{{"name", "c"}, {"image", "nginx"}}})},
                {"volumes", json::array({{{"name", "www"}, {"emptyDir", json::object()}},
                                         {{"name", "cache"}, {"emptyDir", json::object()}}})}}}}},
            {"volumeClaimTemplates",
             json::array({{{"metadata", {{"name", "www"}, {"labels", {{"tier", "disk"}}}}},
                           {"spec", {{"accessModes", json::array({"ReadWriteOnce"})}}}}})}}}};
}

TEST_CASE("pod names split into parent and ordinal") {
  struct Case {
    const char* name;
    const char* parent;
    int64_t ordinal;
  };
  for (const Case& c : std::vector<Case>{{"web-0", "web", 0},
                                         {"my-web-12", "my-web", 12},
                                         {"web-2147483647", "web", 2147483647},
                                         {"web-2147483648", "", -1},
                                         {"web", "", -1},
                                         {"web-", "", -1},
                                         {"web--1", "web-", 1},  // as upstream's (.*)-([0-9]+)$
                                         {"web-x1", "", -1},
                                         {"web-+1", "", -1}}) {
    INFO(c.name);
    auto p = parse_pod_name(c.name);
    CHECK(p.parent == c.parent);
    CHECK(p.ordinal == c.ordinal);
  }
}

TEST_CASE("the ordinal range starts at ordinals.start") {
  json set = web_set();
  CHECK(ordinal_range(set).contains(0));
  CHECK_FALSE(ordinal_range(set).contains(3));
  set["spec"]["ordinals"]["start"] = 5;
  CHECK_FALSE(ordinal_range(set).contains(0));
  CHECK(ordinal_range(set).contains(7));
  CHECK_FALSE(ordinal_range(set).contains(8));
}

TEST_CASE("a stateful pod has its identity, revision and claims") {
  json set = web_set();
  json pod = new_stateful_pod(set, 2, "web-abc");
  CHECK(pod["metadata"]["name"] == "web-2");
  CHECK(pod["metadata"]["namespace"] == "prod");
  CHECK(pod["metadata"]["labels"] == json({{"app", "web"},
                                           {kPodNameLabel, "web-2"},
                                           {kPodIndexLabel, "2"},
                                           {kRevisionLabel, "web-abc"}}));
  CHECK(pod["metadata"]["ownerReferences"][0]["uid"] == "set-uid");
  CHECK(pod["spec"]["hostname"] == "web-2");
  CHECK(pod["spec"]["subdomain"] == "nginx");
  // The claim replaces the template's volume of the same name; others stay.
  CHECK(pod["spec"]["volumes"] ==
        json::array({{{"name", "www"}, {"persistentVolumeClaim", {{"claimName", "www-web-2"}}}},
                     {{"name", "cache"}, {"emptyDir", json::object()}}}));
  CHECK(identity_matches(set, pod));
  CHECK(storage_matches(set, pod));
  CHECK(is_member(set, pod));

  json stripped = pod;
  stripped["metadata"]["labels"].erase(kPodNameLabel);
  CHECK_FALSE(identity_matches(set, stripped));
  CHECK(identity_matches(set, with_identity(set, stripped)));
  json other = pod;
  other["spec"]["volumes"] = json::array();
  CHECK_FALSE(storage_matches(set, other));

  auto claims = claims_for(set, 2);
  REQUIRE(claims.size() == 1);
  CHECK(claims[0]["metadata"]["name"] == "www-web-2");
  CHECK(claims[0]["metadata"]["namespace"] == "prod");
  CHECK(claims[0]["metadata"]["labels"] == json({{"tier", "disk"}, {"app", "web"}}));
  CHECK(claims[0]["spec"]["accessModes"][0] == "ReadWriteOnce");
}

TEST_CASE("claim owners follow the retention policy") {
  json set = web_set();
  json in_range = {{"metadata", {{"name", "web-1"}, {"uid", "pod-1"}}}};
  json scaled_away = {{"metadata", {{"name", "web-5"}, {"uid", "pod-5"}}}};
  json foreign = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"name", "x"}, {"uid", "cm"}};
  json claim = {{"metadata", {{"name", "www-web-1"}, {"ownerReferences", json::array({foreign})}}}};
  auto kinds = [](const json& refs) {
    std::vector<std::string> out;
    for (const auto& r : refs) out.push_back(r.value("kind", "") + "/" + r.value("uid", ""));
    return out;
  };
  using V = std::vector<std::string>;
  auto with_policy = [&](const char* deleted, const char* scaled) {
    json s = set;
    s["spec"]["persistentVolumeClaimRetentionPolicy"] = {{"whenDeleted", deleted},
                                                         {"whenScaled", scaled}};
    return s;
  };
  CHECK(kinds(claim_owner_refs(set, in_range, claim)) == V{"ConfigMap/cm"});
  json s = with_policy("Delete", "Retain");
  CHECK(kinds(claim_owner_refs(s, in_range, claim)) == V{"ConfigMap/cm", "StatefulSet/set-uid"});
  CHECK(kinds(claim_owner_refs(s, scaled_away, claim)) == V{"ConfigMap/cm", "StatefulSet/set-uid"});
  s = with_policy("Retain", "Delete");
  CHECK(kinds(claim_owner_refs(s, in_range, claim)) == V{"ConfigMap/cm"});
  CHECK(kinds(claim_owner_refs(s, scaled_away, claim)) == V{"ConfigMap/cm", "Pod/pod-5"});
  s = with_policy("Delete", "Delete");
  CHECK(kinds(claim_owner_refs(s, in_range, claim)) == V{"ConfigMap/cm", "StatefulSet/set-uid"});
  CHECK(kinds(claim_owner_refs(s, scaled_away, claim)) == V{"ConfigMap/cm", "Pod/pod-5"});
  // A claim another controller owns is left to it.
  json taken = claim;
  taken["metadata"]["ownerReferences"][0]["controller"] = true;
  CHECK(kinds(claim_owner_refs(s, in_range, taken)) == V{"ConfigMap/cm"});
  // Our stale references are replaced.
  json stale = claim;
  stale["metadata"]["ownerReferences"].push_back(
      {{"kind", "StatefulSet"}, {"name", "web"}, {"uid", "old"}});
  CHECK(kinds(claim_owner_refs(s, in_range, stale)) == V{"ConfigMap/cm", "StatefulSet/set-uid"});
}

TEST_CASE("health as the StatefulSet controller reads it") {
  json pod = {{"metadata", {{"name", "web-0"}}}};
  CHECK_FALSE(is_created(pod));
  pod["status"]["phase"] = "Pending";
  CHECK(is_created(pod));
  CHECK_FALSE(running_and_ready(pod));
  pod["status"] = {{"phase", "Running"},
                   {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}};
  CHECK(is_healthy(pod));
  pod["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  CHECK(running_and_ready(pod));
  CHECK_FALSE(is_healthy(pod));
}

}  // namespace
}  // namespace k3c::controllers
