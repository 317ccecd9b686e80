// Image garbage collection over the fake runtime and a filesystem whose usage the test sets.
#include "roles/kubelet/images/image_gc.h"

#include <catch2/catch.hpp>

#include "roles/kubelet/pods/testing/fake_runtime.h"

namespace k3c::kubelet {
namespace {

using namespace std::chrono_literals;

struct GcNode {
  ManualClock clock;
  testing::FakeRuntime runtime{clock};
  FsUsage fs{1000, 500};  // 50% used
  std::vector<std::string> warnings;
  ImageGarbageCollector gc{runtime,
                           runtime,
                           [this]() -> Result<FsUsage> { return fs; },
                           [this](const std::string& reason, const std::string& message) {
                             warnings.push_back(reason + ": " + message);
                           },
                           clock,
                           ImageGcPolicy{85, 80, 2min}};

  void add(const std::string& ref, uint64_t size) {
    runtime::ImageSummary image;
    image.id = "sha256:" + ref;
    image.size = size;
    runtime.add_image(ref, image);
  }
  // A container (in a sandbox of its own) that uses `ref`.
  void use(const std::string& ref) {
    runtime::SandboxConfig sandbox;
    sandbox.pod_uid = "uid-" + ref;
    sandbox.pod_name = "pod-" + ref;
    auto id = runtime.run_pod_sandbox(sandbox);
    REQUIRE(id.is_ok());
    runtime::ContainerConfig c;
    c.name = "c";
    c.image = ref;
    c.args = {"/bin/run"};
    REQUIRE(runtime.create_container(*id, c).is_ok());
  }
  std::vector<std::string> present() {
    std::vector<std::string> ids;
    auto images = runtime.list_images();
    for (const auto& i : *images) ids.push_back(i.id);
    return ids;
  }
};

TEST_CASE("image GC does nothing below the high threshold") {
  GcNode node;
  node.add("a", 300);
  node.fs = {1000, 160};  // 84% used
  REQUIRE(node.gc.collect().is_ok());
  node.clock.advance(1h);
  auto outcome = node.gc.collect();
  REQUIRE(outcome.is_ok());
  CHECK(outcome->usage_percent == 84);
  CHECK(outcome->wanted_bytes == 0);
  CHECK(node.present().size() == 1);
}

TEST_CASE("image GC frees unused images, least recently used first, down to the low threshold") {
  GcNode node;
  node.add("old", 100);
  node.add("busy", 400);
  node.use("busy");
  node.add("newer", 100);
  REQUIRE(node.gc.collect().is_ok());  // first seen now
  node.clock.advance(1h);
  node.add("fresh", 100);  // first seen an hour later: younger than the minimum age
  node.fs = {1000, 100};   // 90% used: 100 more bytes must be free to reach 80%
  auto outcome = node.gc.collect();
  REQUIRE(outcome.is_ok());
  CHECK(outcome->usage_percent == 90);
  CHECK(outcome->wanted_bytes == 100);
  CHECK(outcome->freed_bytes == 100);
  REQUIRE(outcome->removed.size() == 1);
  // "old" and "newer" were both first seen at the same time and never used: map order
  // (by id) breaks the tie, as upstream's stable sort over its records would.
  CHECK(outcome->removed[0] == "sha256:newer");
  const auto left = node.present();
  CHECK(std::count(left.begin(), left.end(), "sha256:busy") == 1);
  CHECK(std::count(left.begin(), left.end(), "sha256:fresh") == 1);
  CHECK(node.warnings.empty());
}

TEST_CASE("image GC never removes an image in use or younger than the minimum age") {
  GcNode node;
  node.add("busy", 400);
  node.use("busy");
  node.add("young", 100);
  node.fs = {1000, 50};  // 95% used
  auto outcome = node.gc.collect();
  REQUIRE_FALSE(outcome.is_ok());
  CHECK(outcome.status().message() ==
        "Failed to garbage collect required amount of images. Attempted to free 150 bytes, "
        "but only found 0 bytes eligible to free.");
  CHECK(node.present().size() == 2);
  REQUIRE(node.warnings.size() == 1);
  CHECK(node.warnings[0].starts_with("FreeDiskSpaceFailed: Failed to garbage collect"));

  // Once old enough the unused one goes; the one in use stays.
  node.clock.advance(3min);
  node.fs = {1000, 50};
  outcome = node.gc.collect();
  REQUIRE_FALSE(outcome.is_ok());  // 100 of 150 bytes
  CHECK(outcome.status().message().find("but only found 100 bytes") != std::string::npos);
  CHECK(node.present() == std::vector<std::string>{"sha256:busy"});
}

TEST_CASE("image GC: an image used recently is kept longer than one used long ago") {
  GcNode node;
  node.add("a", 100);
  node.add("b", 100);
  node.use("b");
  REQUIRE(node.gc.collect().is_ok());
  // "b" stops being used (its container removed) after an hour of use.
  node.clock.advance(1h);
  REQUIRE(node.gc.collect().is_ok());
  auto containers = node.runtime.list_containers();
  for (const auto& c : *containers) REQUIRE(node.runtime.remove_container(c.id).is_ok());
  node.clock.advance(1h);
  node.fs = {1000, 100};
  auto outcome = node.gc.collect();
  REQUIRE(outcome.is_ok());
  CHECK(outcome->removed == std::vector<std::string>{"sha256:a"});
}

TEST_CASE("image GC refuses a filesystem of no capacity") {
  GcNode node;
  node.fs = {0, 0};
  auto outcome = node.gc.collect();
  REQUIRE_FALSE(outcome.is_ok());
  CHECK(node.warnings ==
        std::vector<std::string>{"InvalidDiskCapacity: invalid capacity 0 on image filesystem"});
}

TEST_CASE("statvfs_probe reads a real filesystem") {
  auto fs = statvfs_probe("/")();
  REQUIRE(fs.is_ok());
  CHECK(fs->capacity_bytes > 0);
  CHECK(fs->available_bytes <= fs->capacity_bytes);
  CHECK_FALSE(statvfs_probe("/no/such/dir")().is_ok());
}

}  // namespace
}  // namespace k3c::kubelet
