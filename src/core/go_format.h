// How Go's fmt and strconv print values that upstream messages and texts embed, so that
// k3c's read the same: %v / %s of a []string is "[a b c]".
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace k3c {

inline std::string go_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? " " : "") + items[i];
  return out + "]";
}

// %q of a string: double-quoted with Go's escapes (\" \\ \n \t \r, \xNN for other control
// bytes). Bytes from 0x80 up are kept as they are.
inline std::string go_quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

// strconv.FormatFloat(v, 'g', -1, 64), also %v of a float64: the shortest digits that read
// back as `v`, in exponent form when the exponent is below -4 or at least 6 ("1.2e+07",
// "1e-05"); NaN, +Inf and -Inf as Go spells them.
std::string go_float(double v);

}  // namespace k3c
