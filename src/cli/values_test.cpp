// Tests for the typed setting values: addresses, CIDRs, ports, modes, labels, taints.
#include "cli/values.h"

#include <catch2/catch.hpp>

namespace k3c::cli {
namespace {

TEST_CASE("IP addresses: IPv4 and IPv6 through inet_pton") {
  auto v4 = IpAddress::parse("10.43.0.10");
  REQUIRE(v4.is_ok());
  CHECK(v4->family == IpFamily::kV4);
  CHECK(v4->to_string() == "10.43.0.10");
  auto v6 = IpAddress::parse("fd00::1");
  REQUIRE(v6.is_ok());
  CHECK(v6->family == IpFamily::kV6);
  CHECK(v6->to_string() == "fd00::1");
  for (const char* bad : {"", "10.0.0", "10.0.0.256", "host", "10.0.0.1 ", "::g"}) {
    CHECK(IpAddress::parse(bad).status().code() == Code::kInvalid);
  }
}

TEST_CASE("CIDRs: prefix range and host bits") {
  auto cidr = Cidr::parse("10.42.0.0/16");
  REQUIRE(cidr.is_ok());
  CHECK(cidr->prefix == 16);
  CHECK(cidr->to_string() == "10.42.0.0/16");
  CHECK(Cidr::parse("0.0.0.0/0").is_ok());
  CHECK(Cidr::parse("fd00:42::/56").is_ok());
  CHECK(Cidr::parse("10.0.0.1/32").is_ok());

  CHECK_THAT(Cidr::parse("10.42.0.0/33").status().message(),
             Catch::Contains("IPv4 prefix length must be between 0 and 32"));
  CHECK_THAT(Cidr::parse("fd00::/129").status().message(), Catch::Contains("IPv6"));
  CHECK_THAT(Cidr::parse("10.42.0.1/16").status().message(),
             Catch::Contains("the network address is 10.42.0.0/16"));
  CHECK_THAT(Cidr::parse("10.42.0.0").status().message(), Catch::Contains("ADDRESS/PREFIX"));
  for (const char* bad : {"10.42.0.0/", "10.42.0.0/x", "10.42.0.0/-1", "10.42/16", "/16"}) {
    CHECK_FALSE(Cidr::parse(bad).is_ok());
  }
}

TEST_CASE("CIDR membership and the nth address") {
  Cidr services = *Cidr::parse("10.43.0.0/16");
  CHECK(services.contains(*IpAddress::parse("10.43.255.255")));
  CHECK_FALSE(services.contains(*IpAddress::parse("10.44.0.0")));
  CHECK_FALSE(services.contains(*IpAddress::parse("::1")));
  CHECK(services.nth(10)->to_string() == "10.43.0.10");
  CHECK(services.nth(300)->to_string() == "10.43.1.44");
  CHECK(Cidr::parse("10.0.0.0/30")->nth(3).is_ok());
  CHECK_FALSE(Cidr::parse("10.0.0.0/30")->nth(4).is_ok());
  CHECK(Cidr::parse("fd00::/112")->nth(10)->to_string() == "fd00::a");
}

TEST_CASE("Ports and port ranges") {
  CHECK(*parse_port("6443") == 6443);
  CHECK(*parse_port("1") == 1);
  CHECK(*parse_port("65535") == 65535);
  for (const char* bad : {"0", "65536", "-1", "64x", "", " 1", "99999999999999999999"}) {
    CHECK(parse_port(bad).status().code() == Code::kInvalid);
  }
  CHECK(*PortRange::parse("30000-32767") == PortRange{30000, 32767});
  CHECK(PortRange::parse("80-80").is_ok());
  CHECK_THAT(PortRange::parse("32767-30000").status().message(), Catch::Contains("above"));
  for (const char* bad : {"30000", "0-10", "1-70000", "a-b", "-"}) {
    CHECK_FALSE(PortRange::parse(bad).is_ok());
  }
}

TEST_CASE("Octal file modes") {
  CHECK(*parse_file_mode("0600") == 0600);
  CHECK(*parse_file_mode("644") == 0644);
  CHECK(*parse_file_mode("0") == 0);
  for (const char* bad : {"", "0800", "rw-", "0x600", "17777", "600 "}) {
    CHECK(parse_file_mode(bad).status().code() == Code::kInvalid);
  }
}

TEST_CASE("Booleans") {
  CHECK(*parse_bool("true"));
  CHECK(*parse_bool("yes"));
  CHECK_FALSE(*parse_bool("false"));
  CHECK_FALSE(*parse_bool("off"));
  CHECK_FALSE(parse_bool("maybe").is_ok());
}

TEST_CASE("Node labels are KEY=VALUE with Kubernetes label rules") {
  CHECK(*NodeLabel::parse("tier=edge") == NodeLabel{"tier", "edge"});
  CHECK(*NodeLabel::parse("example.com/zone=") == NodeLabel{"example.com/zone", ""});
  CHECK_FALSE(NodeLabel::parse("a=b=c").is_ok());
  CHECK_THAT(NodeLabel::parse("tier").status().message(), Catch::Contains("KEY=VALUE"));
  CHECK_THAT(NodeLabel::parse("-x=1").status().message(), Catch::Contains("label key"));
  CHECK_THAT(NodeLabel::parse("x=a b").status().message(), Catch::Contains("label value"));
}

TEST_CASE("Node taints are KEY=VALUE:EFFECT or KEY:EFFECT") {
  auto taint = NodeTaint::parse("dedicated=gpu:NoSchedule");
  REQUIRE(taint.is_ok());
  CHECK(*taint == NodeTaint{"dedicated", "gpu", TaintEffect::kNoSchedule});
  CHECK(NodeTaint::parse("node-role.kubernetes.io/control-plane:NoExecute")->value.empty());
  CHECK(NodeTaint::parse("a=b:PreferNoSchedule")->effect == TaintEffect::kPreferNoSchedule);
  CHECK_THAT(NodeTaint::parse("a=b:Never").status().message(),
             Catch::Contains("\"Never\" is not one of NoSchedule, PreferNoSchedule, NoExecute"));
  CHECK_THAT(NodeTaint::parse("a=b").status().message(), Catch::Contains("KEY=VALUE:EFFECT"));
  CHECK_FALSE(NodeTaint::parse("=b:NoSchedule").is_ok());
  CHECK_FALSE(NodeTaint::parse("a=b c:NoSchedule").is_ok());
}

TEST_CASE("Go durations as upstream flags take them") {
  using namespace std::chrono_literals;
  CHECK(*parse_duration("40s") == 40s);
  CHECK(*parse_duration("1m30s") == 90s);
  CHECK(*parse_duration("1.5h") == 90min);
  CHECK(*parse_duration("500ms") == 500ms);
  CHECK(*parse_duration("0") == 0ms);
  CHECK(*parse_duration("2us") == 0ms);
  CHECK(parse_duration("5").status().message() == "a unit is missing (ns, us, ms, s, m, h)");
  CHECK(parse_duration("-5s").status().message() == "must not be negative");
  CHECK_FALSE(parse_duration("").is_ok());
  CHECK_FALSE(parse_duration("5x").is_ok());
  CHECK_FALSE(parse_duration("s").is_ok());
  CHECK_FALSE(parse_duration("1..5s").is_ok());
  CHECK_FALSE(parse_duration("100000h").is_ok());
}

}  // namespace
}  // namespace k3c::cli
