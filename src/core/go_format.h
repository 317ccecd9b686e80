// How Go's fmt prints values that upstream messages embed, so that k3c's messages read the
// same: %v / %s of a []string is "[a b c]".
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

}  // namespace k3c
