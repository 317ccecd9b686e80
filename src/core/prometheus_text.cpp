// The Prometheus text format's pieces (see prometheus_text.h).
#include "core/prometheus_text.h"

namespace k3c {
namespace {

std::string escaped(std::string_view value, bool quotes) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '\\' || (quotes && c == '"')) out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::string prometheus_escaped(std::string_view value) { return escaped(value, true); }

void prometheus_family(std::string& out, std::string_view name, std::string_view type,
                       std::string_view help) {
  out.append("# HELP ").append(name).append(" ").append(escaped(help, false)).append("\n");
  out.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

}  // namespace k3c
