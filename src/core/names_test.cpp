// Tests for the Kubernetes name rules.
#include "core/names.h"

#include <catch2/catch.hpp>
#include <string>

namespace k3c::names {
namespace {

TEST_CASE("DNS-1123 subdomains") {
  for (const char* good : {"a", "node-1", "edge.example.com", "0abc", "cluster.local"}) {
    CHECK(validate_dns1123_subdomain(good).is_ok());
  }
  for (const char* bad : {"", "Node", "-a", "a-", "a..b", ".a", "a_b", "a b"}) {
    CHECK(validate_dns1123_subdomain(bad).code() == Code::kInvalid);
  }
  CHECK_FALSE(validate_dns1123_subdomain(std::string(254, 'a')).is_ok());
}

TEST_CASE("DNS-1123 labels") {
  CHECK(validate_dns1123_label("coredns").is_ok());
  CHECK_FALSE(validate_dns1123_label("a.b").is_ok());
  CHECK_FALSE(validate_dns1123_label(std::string(64, 'a')).is_ok());
}

TEST_CASE("Qualified names (label and taint keys)") {
  for (const char* good : {"app", "App_1.x-y", "node-role.kubernetes.io/master", "a/b"}) {
    CHECK(validate_qualified_name(good).is_ok());
  }
  for (const char* bad : {"", "/a", "a/", "-a", "a-", "Example.com/a", "a/b/c", "a b"}) {
    CHECK(validate_qualified_name(bad).code() == Code::kInvalid);
  }
  CHECK_FALSE(validate_qualified_name(std::string(64, 'a')).is_ok());
}

TEST_CASE("Label values") {
  for (const char* good : {"", "true", "v1.2_3-x", "A"}) CHECK(validate_label_value(good).is_ok());
  for (const char* bad : {"-a", "a b", "a/b", "a-"}) {
    CHECK(validate_label_value(bad).code() == Code::kInvalid);
  }
  CHECK_FALSE(validate_label_value(std::string(64, 'a')).is_ok());
}

}  // namespace
}  // namespace k3c::names
