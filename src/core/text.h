// Small string helpers every module uses (one definition each, not one per file).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace k3c {

// `s` without leading and trailing white space (as isspace: space, \t, \n, \v, \f, \r).
inline std::string_view trim_space(std::string_view s) {
  constexpr std::string_view kSpace = " \t\n\v\f\r";
  const size_t first = s.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(kSpace) - first + 1);
}

// `s` without leading and trailing spaces and tabs (HTTP's optional white space, RFC 9110
// 5.6.3: header values and list elements).
inline std::string_view trim_blanks(std::string_view s) {
  constexpr std::string_view kBlank = " \t";
  const size_t first = s.find_first_not_of(kBlank);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(kBlank) - first + 1);
}

// The items with `separator` between them ("a, b, c").
inline std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += separator;
    out += items[i];
  }
  return out;
}

}  // namespace k3c
