#include "roles/controllers/common/controller_history.h"

#include <catch2/catch.hpp>

namespace k3c::controllers {
namespace {

json set_with_image(const std::string& image) {
  return {{"metadata", {{"name", "web"}, {"namespace", "default"}, {"uid", "u1"}}},
          {"spec",
           {{"replicas", 3},
            {"template",
             {{"metadata", {{"labels", {{"app", "web"}}}, {"creationTimestamp", nullptr}}},
              {"spec", {{"containers", json::array({{{"name", "c"}, {"image", image}}})}}}}}}}};
}

TEST_CASE("a revision records the template as a replacing strategic merge patch") {
  json data = revision_data(set_with_image("busybox:1"));
  CHECK(data["spec"]["template"]["$patch"] == "replace");
  CHECK(data["spec"]["template"]["spec"]["containers"][0]["image"] == "busybox:1");
  CHECK(data["spec"].size() == 1);  // only the template: replicas are not history

  json revision = {{"data", data}, {"revision", 1}};
  json applied = apply_revision(set_with_image("busybox:2"), revision);
  CHECK(applied["spec"]["template"]["spec"]["containers"][0]["image"] == "busybox:1");
  CHECK_FALSE(applied["spec"]["template"].contains("$patch"));
  CHECK(applied["spec"]["replicas"] == 3);
  CHECK(revision_number(revision) == 1);
  CHECK(revision_number(json::object()) == 0);
}

TEST_CASE("revision hashes follow the template and the collision count") {
  json a = revision_data(set_with_image("busybox:1"));
  json b = revision_data(set_with_image("busybox:2"));
  CHECK(revision_hash(a, 0) == revision_hash(a, 0));
  CHECK(revision_hash(a, 0) != revision_hash(b, 0));
  CHECK(revision_hash(a, 0) != revision_hash(a, 1));
  for (char c : revision_hash(a, 0)) CHECK(std::string("aeiou013").find(c) == std::string::npos);
}

TEST_CASE("equal templates are the same revision data") {
  json a = revision_data(set_with_image("busybox:1"));
  json b = a;
  b["spec"]["template"]["metadata"].erase("creationTimestamp");
  b["spec"]["template"].erase("$patch");
  CHECK(same_data(a, b));
  CHECK_FALSE(same_data(a, revision_data(set_with_image("busybox:2"))));
}

}  // namespace
}  // namespace k3c::controllers
