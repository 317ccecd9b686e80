// Tests for settings sources and layering: the config file's YAML, environment bindings,
// split lists and overlay.
#include "cli/settings.h"

#include <catch2/catch.hpp>

namespace k3c::cli {
namespace {

std::vector<std::string> texts(const Setting& setting) {
  std::vector<std::string> out;
  for (const SettingValue& value : setting) out.push_back(value.text);
  return out;
}

Status yaml_error(const std::string& text, Command command = Command::kServer) {
  return settings_from_yaml(text, "/cfg.yaml", command).status();
}

TEST_CASE("split_commas trims and drops empty pieces") {
  CHECK(split_commas("a, b,,c ") == std::vector<std::string>{"a", "b", "c"});
  CHECK(split_commas("").empty());
  CHECK(split_commas("one") == std::vector<std::string>{"one"});
}

TEST_CASE("Config file: scalars, lists and comma strings") {
  auto settings = settings_from_yaml(
      "cluster-cidr: 10.44.0.0/16\n"
      "write-kubeconfig-mode: 0644\n"
      "disable-agent: true\n"
      "node-label:\n  - a=1\n  - b=2\n"
      "tls-san: one.example.com, 10.0.0.9\n",
      "/cfg.yaml", Command::kServer);
  REQUIRE(settings.is_ok());
  CHECK(texts(settings->at("cluster-cidr")) == std::vector<std::string>{"10.44.0.0/16"});
  // The raw text, not YAML 1.1's octal integer: 0644 stays 0644.
  CHECK(texts(settings->at("write-kubeconfig-mode")) == std::vector<std::string>{"0644"});
  CHECK(texts(settings->at("disable-agent")) == std::vector<std::string>{"true"});
  CHECK(texts(settings->at("node-label")) == std::vector<std::string>{"a=1", "b=2"});
  CHECK(texts(settings->at("tls-san")) == std::vector<std::string>{"one.example.com", "10.0.0.9"});
  CHECK(settings->at("cluster-cidr")[0].origin == "config file /cfg.yaml: key \"cluster-cidr\"");
}

TEST_CASE("Config file: an empty file sets nothing") {
  CHECK(settings_from_yaml("", "/cfg.yaml", Command::kAgent)->empty());
  CHECK(settings_from_yaml("# only a comment\n", "/cfg.yaml", Command::kAgent)->empty());
}

TEST_CASE("Config file: each mistake is an error naming the file and the key") {
  CHECK(yaml_error("clster-cidr: 10.0.0.0/8\n").message() ==
        "config file /cfg.yaml: key \"clster-cidr\": unknown setting");
  CHECK(yaml_error("cluster-cidr: 10.0.0.0/8\n", Command::kAgent).message() ==
        "config file /cfg.yaml: key \"cluster-cidr\": only `k3c server` takes this setting, "
        "not `k3c agent`");
  CHECK_THAT(yaml_error("config: /other.yaml\n").message(),
             Catch::Contains("cannot name another config file"));
  CHECK_THAT(yaml_error("cluster-cidr: [10.0.0.0/8]\n").message(),
             Catch::Contains("key \"cluster-cidr\": takes a single value, not a list"));
  CHECK_THAT(yaml_error("token:\n").message(), Catch::Contains("key \"token\": has no value"));
  CHECK_THAT(yaml_error("token: {a: b}\n").message(), Catch::Contains("must be a scalar"));
  CHECK_THAT(yaml_error("node-label: [[a]]\n").message(),
             Catch::Contains("list items must be scalars"));
  CHECK_THAT(yaml_error("debug: true\ndebug: false\n").message(),
             Catch::Contains("key \"debug\": given twice"));
  CHECK_THAT(yaml_error("- a\n- b\n").message(), Catch::Contains("must be a map"));
  CHECK_THAT(yaml_error("a: [\n").message(), Catch::Contains("invalid YAML"));
  CHECK(yaml_error("a: [\n").code() == Code::kInvalid);
}

TEST_CASE("Environment variables bind to the flags of the command") {
  Environment env;
  env.variables = {{"K3C_TOKEN", "secret"},
                   {"K3C_URL", "https://10.0.0.1:6443"},
                   {"K3C_DATASTORE_ENDPOINT", "sqlite:///x.db"},
                   {"K3C_NODE_NAME", ""},
                   {"K3S_TOKEN", "not ours"}};
  Settings server = settings_from_environment(env, Command::kServer);
  CHECK(texts(server.at("token")) == std::vector<std::string>{"secret"});
  CHECK(server.at("token")[0].origin == "environment variable K3C_TOKEN");
  CHECK(server.count("datastore-endpoint") == 1);
  CHECK(server.count("node-name") == 0);  // empty means unset
  Settings agent = settings_from_environment(env, Command::kAgent);
  CHECK(agent.count("datastore-endpoint") == 0);  // a server-only flag
  CHECK(texts(agent.at("server")) == std::vector<std::string>{"https://10.0.0.1:6443"});
}

TEST_CASE("overlay: single values are replaced, lists are appended") {
  Settings lower = {{"token", {{"low", "config"}}}, {"node-label", {{"a=1", "config"}}}};
  Settings higher = {{"token", {{"high", "flag"}}}, {"node-label", {{"b=2", "flag"}}}};
  Settings merged = overlay(lower, higher);
  CHECK(texts(merged.at("token")) == std::vector<std::string>{"high"});
  CHECK(merged.at("token")[0].origin == "flag");
  CHECK(texts(merged.at("node-label")) == std::vector<std::string>{"a=1", "b=2"});
}

}  // namespace
}  // namespace k3c::cli
