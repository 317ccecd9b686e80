#include "core/selector.h"

#include <catch2/catch.hpp>

namespace k3c {
namespace {

bool sel(std::string_view text, const Labels& labels) {
  auto s = LabelSelector::parse(text);
  REQUIRE(s.is_ok());
  return s->matches(labels);
}

TEST_CASE("label selectors: every operator") {
  Labels l{{"app", "web"}, {"tier", "fe"}, {"env", "prod"}};
  REQUIRE(sel("", l));
  REQUIRE(sel("app=web", l));
  REQUIRE(sel("app==web", l));
  REQUIRE_FALSE(sel("app!=web", l));
  REQUIRE(sel("app!=db", l));
  REQUIRE(sel("missing!=x", l));
  REQUIRE(sel("tier in (fe, be)", l));
  REQUIRE_FALSE(sel("tier notin (fe,be)", l));
  REQUIRE(sel("missing notin (a)", l));
  REQUIRE(sel("app", l));
  REQUIRE_FALSE(sel("!app", l));
  REQUIRE(sel("!missing", l));
  REQUIRE(sel("app=web,tier in (fe),!missing,env", l));
  REQUIRE_FALSE(sel("app=web,tier in (be)", l));
  REQUIRE(
      sel("example.com/role in (x,web),app=web", {{"example.com/role", "web"}, {"app", "web"}}));
}

TEST_CASE("label selectors: bad input is a BadRequest") {
  for (auto bad :
       {"app=we b", "=x", "tier in fe", "tier in (fe", "a b c=d", "app=(x)", "x in (a,b))"}) {
    INFO(bad);
    auto s = LabelSelector::parse(bad);
    REQUIRE_FALSE(s.is_ok());
    REQUIRE(s.status().code() == Code::kBadRequest);
  }
}

TEST_CASE("field selectors") {
  auto s = FieldSelector::parse("metadata.name=solo,status.phase!=Failed");
  REQUIRE(s.is_ok());
  REQUIRE(s->matches({{"metadata.name", "solo"}, {"status.phase", "Running"}}));
  REQUIRE_FALSE(s->matches({{"metadata.name", "solo"}, {"status.phase", "Failed"}}));
  REQUIRE(*s->required_value("metadata.name") == "solo");
  REQUIRE(s->required_value("status.phase") == nullptr);
  REQUIRE(FieldSelector::parse("spec.nodeName==").is_ok());
  REQUIRE(FieldSelector::parse("spec.nodeName==")->matches({}));
  REQUIRE(FieldSelector::parse("nonsense").status().code() == Code::kBadRequest);
}

}  // namespace
}  // namespace k3c
