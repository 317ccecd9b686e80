// Regular expressions as upstream's Go code has them: Go's regexp syntax (RE2), matched in
// time linear in the input, so a pattern from outside (registries.yaml rewrites, a CRD's
// schema `pattern`) can neither hang a thread nor overflow its stack the way a backtracking
// engine (std::regex) can.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "core/status.h"

namespace re2 {
class RE2;
}

namespace k3c {

class Regex {
 public:
  // Go's regexp.Compile: an invalid pattern is an error with RE2's reason.
  static Result<Regex> compile(std::string_view pattern);

  // Whether the pattern matches anywhere in text (Go's MatchString).
  bool search(std::string_view text) const;

  // Go's ReplaceAllString: every non-overlapping match replaced by the template, in which
  // $1, ${1}, $name and ${name} stand for groups and $$ for a '$'.
  std::string replace_all(std::string_view text, std::string_view replacement) const;

  const std::string& pattern() const { return pattern_; }

 private:
  Regex(std::string pattern, std::shared_ptr<const re2::RE2> re)
      : pattern_(std::move(pattern)), re_(std::move(re)) {}

  std::string pattern_;
  std::shared_ptr<const re2::RE2> re_;  // immutable and thread-safe: copies share it
};

}  // namespace k3c
