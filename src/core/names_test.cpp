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

TEST_CASE("problems are worded as upstream words them") {
  CHECK(dns1123_subdomain_problems("Bad_Name") ==
        std::vector<std::string>{
            "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
            "'-' or '.', and must start and end with an alphanumeric character (e.g. "
            "'example.com', regex used for validation is "
            "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"});
  CHECK(dns1123_label_problems("Web") ==
        std::vector<std::string>{
            "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or "
            "'-', and must start and end with an alphanumeric character (e.g. 'my-name',  or "
            "'123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"});
  CHECK(dns1123_label_problems(std::string(64, 'a')) ==
        std::vector<std::string>{"must be no more than 63 characters"});
  CHECK(qualified_name_problems("/x") == std::vector<std::string>{"prefix part must be non-empty"});
  CHECK(label_value_problems("ok").empty());
  CHECK(validate_dns1123_label("A").message().starts_with("\"A\": a lowercase RFC 1123 label"));
}

}  // namespace
}  // namespace k3c::names
