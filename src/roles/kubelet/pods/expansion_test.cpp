// $(VAR) expansion: upstream's cases, including its escapes and what stays literal.
#include "roles/kubelet/pods/expansion.h"

#include <catch2/catch.hpp>
#include <map>

namespace k3c::kubelet {
namespace {

std::string run(std::string_view input) {
  static const std::map<std::string, std::string, std::less<>> vars = {
      {"VAR_A", "A"}, {"VAR_B", "B"}, {"VAR_C", "C"}, {"VAR_REF", "$(VAR_A)"}, {"VAR_EMPTY", ""}};
  return expand_vars(input, [](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  });
}

TEST_CASE("expand_vars replaces known references") {
  CHECK(run("$(VAR_A)") == "A");
  CHECK(run("$(VAR_A)-$(VAR_A)") == "A-A");
  CHECK(run("___$(VAR_B)___") == "___B___");
  CHECK(run("$(VAR_A)_$(VAR_B)_$(VAR_C)") == "A_B_C");
  CHECK(run("foo$(VAR_EMPTY)bar") == "foobar");
  // A value is not expanded again.
  CHECK(run("%%$(VAR_REF)--$(VAR_REF)%%") == "%%$(VAR_A)--$(VAR_A)%%");
}

TEST_CASE("expand_vars keeps escapes, unknown and malformed references as upstream") {
  CHECK(run("$$(VAR_B)_$(VAR_A)") == "$(VAR_B)_A");
  CHECK(run("f000-$$VAR_A") == "f000-$VAR_A");
  CHECK(run("$(VAR_DNE)") == "$(VAR_DNE)");
  CHECK(run("$$$$$$(BIG_MONEY)") == "$$$(BIG_MONEY)");
  CHECK(run("$$$$$$$(GOOD_ODDS)") == "$$$$(GOOD_ODDS)");
  CHECK(run("$$$$$$$(VAR_A)") == "$$$A");
  CHECK(run("$(VAR_A$(VAR_B))") == "$(VAR_A$(VAR_B))");
  CHECK(run("foo$(VAR_Awhoops!") == "foo$(VAR_Awhoops!");
  CHECK(run("$?_boo_$!") == "$?_boo_$!");
  CHECK(run("$VAR_A") == "$VAR_A");
  CHECK(run("${VAR_A}") == "${VAR_A}");
  CHECK(run("$(VAR_B)_______$(A") == "B_______$(A");
  CHECK(run("$(VAR_C)_______$(") == "C_______$(");
  CHECK(run("$(VAR_A)foobarzab$") == "Afoobarzab$");
  CHECK(run("--$($($($($--") == "--$($($($($--");
  CHECK(run("$(foo$$var)") == "$(foo$$var)");
  CHECK(run("foo\\$(VAR_C)bar") == "foo\\Cbar");
}

TEST_CASE("subPathExpr is expanded from the container's environment") {
  nlohmann::json c = {{"name", "app"},
                      {"volumeMounts",
                       {{{"name", "logs"}, {"mountPath", "/logs"}, {"subPathExpr", "$(POD)/x"}},
                        {{"name", "data"}, {"mountPath", "/data"}, {"subPath", "fixed"}}}}};
  auto out = expand_sub_path_exprs(c, {"POD=web-1", "EMPTY="});
  REQUIRE(out.is_ok());
  CHECK((*out)["volumeMounts"][0]["subPath"] == "web-1/x");
  CHECK_FALSE((*out)["volumeMounts"][0].contains("subPathExpr"));
  CHECK((*out)["volumeMounts"][1]["subPath"] == "fixed");
  c["volumeMounts"][0]["subPathExpr"] = "$(NOPE)/$(EMPTY)/$(POD)";
  auto missing = expand_sub_path_exprs(c, {"POD=web-1", "EMPTY="});
  REQUIRE_FALSE(missing.is_ok());
  CHECK(missing.status().message() == "missing value for EMPTY, NOPE");
}

}  // namespace
}  // namespace k3c::kubelet
