// `k3c bench hollow-nodes` flags: defaults, and bad input as a clear error with exit code 1.
#include "cli/bench_command.h"

#include <catch2/catch.hpp>

namespace k3c::cli {
namespace {

BenchParse parse(std::vector<std::string> args) {
  args.insert(args.begin(), "hollow-nodes");
  return parse_bench(args, Environment{});
}

TEST_CASE("hollow-nodes takes its flags and fills the rest with defaults") {
  BenchParse p = parse({"--kubeconfig", "/k.yaml", "--count", "3"});
  REQUIRE(p.hollow_nodes);
  CHECK(p.hollow_nodes->kubeconfig == "/k.yaml");
  CHECK(p.hollow_nodes->settings.count == 3);
  CHECK(p.hollow_nodes->settings.name_prefix == "hollow-");
  CHECK(p.hollow_nodes->settings.cpus == 4);
  CHECK(p.hollow_nodes->settings.memory_bytes == 8LL << 30);
  CHECK(p.hollow_nodes->settings.max_pods == 110);
  p = parse({"--kubeconfig", "k", "--count", "2", "--name-prefix", "fake-", "--cpu", "16",
             "--memory", "64Gi", "--pods", "250"});
  REQUIRE(p.hollow_nodes);
  CHECK(p.hollow_nodes->settings.name_prefix == "fake-");
  CHECK(p.hollow_nodes->settings.cpus == 16);
  CHECK(p.hollow_nodes->settings.memory_bytes == 64LL << 30);
  CHECK(p.hollow_nodes->settings.max_pods == 250);
}

TEST_CASE("bad hollow-nodes input is a one-line error and exit code 1") {
  auto check_bad = [](std::vector<std::string> args, const std::string& words) {
    BenchParse p = parse(std::move(args));
    CHECK_FALSE(p.hollow_nodes);
    CHECK(p.exit.exit_code == 1);
    CHECK(p.exit.err.find(words) != std::string::npos);
  };
  check_bad({"--kubeconfig", "k", "--count", "0"}, "--count must be at least 1");
  check_bad({"--kubeconfig", "k", "--count=-5"}, "--count must be at least 1");
  check_bad({"--kubeconfig", "k", "--count", "2", "--memory", "lots"}, "--memory \"lots\"");
  check_bad({"--kubeconfig", "k", "--count", "2", "--memory", "0"}, "not a positive quantity");
  check_bad({"--count", "2"}, "--kubeconfig");
  check_bad({"--kubeconfig", "k", "--count", "many"}, "--count");
}

}  // namespace
}  // namespace k3c::cli
