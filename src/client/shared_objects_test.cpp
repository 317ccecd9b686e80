// The shared parsed objects: one tree per resource and version while some holder keeps it,
// and a table that does not outgrow the trees alive.
#include "client/shared_objects.h"

#include <catch2/catch.hpp>
#include <vector>

namespace k3c::client {
namespace {

using nlohmann::json;

SharedObjects::Ptr object(const std::string& name, const std::string& rv) {
  return std::make_shared<const json>(
      json{{"metadata", {{"name", name}, {"resourceVersion", rv}}}});
}

TEST_CASE("the first tree filed for a resource and version is the one every caller gets") {
  SharedObjects shared;
  auto first = object("a", "5");
  CHECK(shared.find("/api/v1/pods", "5") == nullptr);
  CHECK(shared.share("/api/v1/pods", first) == first);
  CHECK(shared.share("/api/v1/pods", object("a", "5")) == first);
  CHECK(shared.find("/api/v1/pods", "5") == first);
  // Another resource (or version of the API) is another object.
  auto other = object("a", "5");
  CHECK(shared.share("/apis/apps/v1/replicasets", other) == other);
  CHECK(shared.find("/api/v1/pods", "6") == nullptr);
  // Without a resourceVersion nothing is filed.
  auto bare = std::make_shared<const json>(json{{"metadata", {{"name", "b"}}}});
  CHECK(shared.share("/api/v1/pods", bare) == bare);
  CHECK(shared.find("/api/v1/pods", "") == nullptr);
}

TEST_CASE("a tree no one holds is not found, and its entry is swept") {
  SharedObjects shared;
  shared.share("/api/v1/pods", object("a", "5"));  // dropped at once
  CHECK(shared.find("/api/v1/pods", "5") == nullptr);
  auto again = object("a", "5");
  CHECK(shared.share("/api/v1/pods", again) == again);

  std::vector<SharedObjects::Ptr> held;
  for (int i = 0; i < 100; ++i) held.push_back(shared.share("/api/v1/pods", object("h", std::to_string(1000 + i))));
  for (int i = 0; i < 10'000; ++i) shared.share("/api/v1/pods", object("x", std::to_string(100'000 + i)));
  CHECK(shared.size() < 2'500);
  for (int i = 0; i < 100; ++i) CHECK(shared.find("/api/v1/pods", std::to_string(1000 + i)) == held[i]);
}

}  // namespace
}  // namespace k3c::client
