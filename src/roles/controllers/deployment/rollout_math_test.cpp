#include "roles/controllers/deployment/rollout_math.h"

#include <catch2/catch.hpp>

namespace k3c::controllers {
namespace {

using nlohmann::json;

TEST_CASE("intOrString values scale against a total") {
  CHECK(scaled_value(json(2), 10, true) == 2);
  CHECK(scaled_value(json("25%"), 10, true) == 3);
  CHECK(scaled_value(json("25%"), 10, false) == 2);
  CHECK(scaled_value(json("100%"), 3, false) == 3);
  CHECK(scaled_value(json("x%"), 10, true) == 0);
  CHECK(scaled_value(json("25"), 10, true) == 0);
  CHECK(scaled_value(json(), 10, true) == 0);
}

TEST_CASE("rollout bounds default to 25% and never both zero") {
  json d = {{"spec", {{"replicas", 4}}}};
  auto b = rollout_bounds(d);
  CHECK(b.max_surge == 1);
  CHECK(b.max_unavailable == 1);
  d["spec"]["strategy"]["rollingUpdate"] = {{"maxSurge", 0}, {"maxUnavailable", 0}};
  b = rollout_bounds(d);
  CHECK(b.max_surge == 0);
  CHECK(b.max_unavailable == 1);
}

TEST_CASE("the pod-template-hash ignores its own label") {
  json t = {{"metadata", {{"labels", {{"app", "x"}}}}}, {"spec", json::object()}};
  json labelled = t;
  labelled["metadata"]["labels"]["pod-template-hash"] = "abc";
  CHECK(pod_template_hash(t, 0) == pod_template_hash(labelled, 0));
  CHECK(pod_template_hash(t, 0) != pod_template_hash(t, 1));
}

}  // namespace
}  // namespace k3c::controllers
