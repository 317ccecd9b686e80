// Reference normalisation as Kubernetes and containerd do it.
#include "runtime/reference.h"

#include <catch2/catch.hpp>

namespace k3c::runtime {
namespace {

std::string normal(const char* text) {
  Result<Reference> ref = parse_reference(text);
  REQUIRE(ref.is_ok());
  return ref->to_string();
}

TEST_CASE("Short names normalise as containerd does") {
  CHECK(normal("busybox") == "docker.io/library/busybox:latest");
  CHECK(normal("busybox:1.36") == "docker.io/library/busybox:1.36");
  CHECK(normal("foo/bar:1") == "docker.io/foo/bar:1");
  CHECK(normal("localhost:5000/x") == "localhost:5000/x:latest");
  CHECK(normal("localhost/x:2") == "localhost/x:2");
  CHECK(normal("registry.k8s.io/pause:3.9") == "registry.k8s.io/pause:3.9");
  CHECK(normal("index.docker.io/library/busybox") == "docker.io/library/busybox:latest");
  CHECK(normal("docker.io/busybox") == "docker.io/library/busybox:latest");
  CHECK(normal("quay.io/a/b/c:v1.0-rc_1") == "quay.io/a/b/c:v1.0-rc_1");
  const std::string digest = "sha256:" + std::string(64, 'a');
  CHECK(normal(("busybox@" + digest).c_str()) == "docker.io/library/busybox@" + digest);
  CHECK(normal(("busybox:1@" + digest).c_str()) == "docker.io/library/busybox:1@" + digest);
}

TEST_CASE("Bad references are refused with the reason") {
  for (const char* bad : {"", "Busybox", "busybox:", "busybox:-x", "a//b", "/busybox",
                          "busybox@sha256:12", "foo/bar/", "a..b"}) {
    INFO(bad);
    Result<Reference> ref = parse_reference(bad);
    REQUIRE_FALSE(ref.is_ok());
    CHECK(ref.status().code() == Code::kInvalid);
    CHECK_THAT(ref.status().message(), Catch::StartsWith("invalid image reference"));
  }
  CHECK_THAT(parse_reference(std::string(64, 'a')).status().message(),
             Catch::Contains("64-byte hexadecimal"));
}

}  // namespace
}  // namespace k3c::runtime
