// Pieces of the Prometheus text exposition format (version 0.0.4) that the /metrics
// endpoints share: a family's HELP and TYPE lines and label values escaped as the format
// wants. Values are written with go_float (core/go_format.h), as Go's client writes them.
#pragma once

#include <string>
#include <string_view>

namespace k3c {

// The Content-Type of the text format.
inline constexpr char kPrometheusTextType[] = "text/plain; version=0.0.4; charset=utf-8";

// A label value with backslash, double quote and newline escaped.
std::string prometheus_escaped(std::string_view value);

// "# HELP <name> <help>\n# TYPE <name> <type>\n" (the help's backslashes and newlines escaped).
void prometheus_family(std::string& out, std::string_view name, std::string_view type,
                       std::string_view help);

}  // namespace k3c
