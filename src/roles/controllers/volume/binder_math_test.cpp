#include "roles/controllers/volume/binder_math.h"

#include <catch2/catch.hpp>

namespace k3c::controllers {
namespace {

using nlohmann::json;

json binder_volume(const std::string& name, const std::string& size,
                   json extra_spec = json::object()) {
  json v = {{"metadata", {{"name", name}, {"labels", {{"tier", "fast"}}}}},
            {"spec",
             {{"capacity", {{"storage", size}}},
              {"accessModes", {"ReadWriteOnce", "ReadOnlyMany"}},
              {"storageClassName", ""}}},
            {"status", {{"phase", "Available"}}}};
  v["spec"].update(extra_spec);
  return v;
}

json claim_of_size(const std::string& size, json extra_spec = json::object()) {
  json c = {
      {"metadata", {{"name", "data"}, {"namespace", "ns"}, {"uid", "u1"}}},
      {"spec",
       {{"accessModes", {"ReadWriteOnce"}}, {"resources", {{"requests", {{"storage", size}}}}}}}};
  c["spec"].update(extra_spec);
  return c;
}

std::string pick(const json& c, const std::vector<json>& volumes) {
  std::vector<const json*> views;
  for (const auto& v : volumes) views.push_back(&v);
  const json* m = matching_volume(c, views);
  return m ? (*m)["metadata"]["name"].get<std::string>() : "";
}

TEST_CASE("PV binder: the smallest volume that fits") {
  std::vector<json> volumes = {binder_volume("big", "10Gi"), binder_volume("small", "1Gi"),
                               binder_volume("mid", "2Gi")};
  CHECK(pick(claim_of_size("1500Mi"), volumes) == "mid");
  CHECK(pick(claim_of_size("500Mi"), volumes) == "small");
  CHECK(pick(claim_of_size("20Gi"), volumes).empty());
  // Access modes must all be offered; the class and volume mode must agree.
  CHECK(pick(claim_of_size("1Gi", {{"accessModes", {"ReadWriteMany"}}}), volumes).empty());
  CHECK(pick(claim_of_size("1Gi", {{"storageClassName", "local"}}), volumes).empty());
  CHECK(pick(claim_of_size("1Gi", {{"volumeMode", "Block"}}), volumes).empty());
  // The claim's selector picks among the volumes' labels.
  CHECK(pick(claim_of_size("1Gi", {{"selector", {{"matchLabels", {{"tier", "fast"}}}}}}), volumes) ==
        "small");
  CHECK(pick(claim_of_size("1Gi", {{"selector", {{"matchLabels", {{"tier", "slow"}}}}}}), volumes).empty());
}

TEST_CASE("PV binder: claimed, unavailable and deleted volumes are skipped; pre-bound wins") {
  std::vector<json> volumes = {
      binder_volume("taken", "1Gi", {{"claimRef", {{"namespace", "ns"}, {"name", "other"}}}}),
      binder_volume("released", "1Gi"), binder_volume("going", "1Gi"),
      binder_volume("free", "5Gi")};
  volumes[1]["status"]["phase"] = "Released";
  volumes[2]["metadata"]["deletionTimestamp"] = "2026-11-30T00:00:00Z";
  CHECK(pick(claim_of_size("1Gi"), volumes) == "free");
  // A volume the user pre-bound to this claim is taken even though a smaller one fits.
  volumes.push_back(
      binder_volume("mine", "50Gi", {{"claimRef", {{"namespace", "ns"}, {"name", "data"}}}}));
  CHECK(pick(claim_of_size("1Gi"), volumes) == "mine");
  CHECK(volume_bound_to(volumes.back(), claim_of_size("1Gi")));
  volumes.back()["spec"]["claimRef"]["uid"] = "someone-else";
  CHECK_FALSE(volume_bound_to(volumes.back(), claim_of_size("1Gi")));
}

TEST_CASE("PV binder: the class from spec or the beta annotation") {
  CHECK(storage_class_of(claim_of_size("1Gi", {{"storageClassName", "local"}})) == "local");
  json c = claim_of_size("1Gi");
  c["metadata"]["annotations"]["volume.beta.kubernetes.io/storage-class"] = "old";
  CHECK(storage_class_of(c) == "old");
  CHECK(storage_class_of(claim_of_size("1Gi")).empty());
}

}  // namespace
}  // namespace k3c::controllers
