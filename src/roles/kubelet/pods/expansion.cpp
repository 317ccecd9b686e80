// $(VAR) expansion (see expansion.h).
#include "roles/kubelet/pods/expansion.h"

namespace k3c::kubelet {

std::string expand_vars(std::string_view input, const VarLookup& lookup) {
  std::string out;
  out.reserve(input.size());
  size_t i = 0;
  while (i < input.size()) {
    const char c = input[i];
    if (c != '$' || i + 1 == input.size()) {  // a trailing `$` is kept
      out += c;
      ++i;
      continue;
    }
    const char next = input[i + 1];
    if (next == '$') {  // escaped operator
      out += '$';
      i += 2;
      continue;
    }
    if (next == '(') {
      const size_t close = input.find(')', i + 2);
      if (close == std::string_view::npos) {
        // An unclosed reference is kept, and scanning goes on after the `$(` (a later `$(`
        // in it is looked at again).
        out += "$(";
        i += 2;
        continue;
      }
      const std::string_view name = input.substr(i + 2, close - i - 2);
      if (auto value = lookup(name)) {
        out += *value;
      } else {
        out.append(input.substr(i, close - i + 1));  // unknown: kept as written
      }
      i = close + 1;
      continue;
    }
    out += '$';  // `$X`: not an expression
    ++i;
  }
  return out;
}

}  // namespace k3c::kubelet
