// Kubernetes name rules (see names.h).
#include "core/names.h"

#include <string>

namespace k3c::names {
namespace {

bool is_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool is_alnum(char c) { return is_lower_alnum(c) || (c >= 'A' && c <= 'Z'); }

Status invalid(std::string_view value, std::string_view rule) {
  return error(Code::kInvalid, "\"" + std::string(value) + "\": " + std::string(rule));
}

// Alphanumeric at both ends, `allowed` in between.
template <typename Inner>
bool well_bracketed(std::string_view value, bool (*edge)(char), Inner inner) {
  if (value.empty() || !edge(value.front()) || !edge(value.back())) return false;
  for (char c : value) {
    if (!edge(c) && !inner(c)) return false;
  }
  return true;
}

}  // namespace

Status validate_dns1123_label(std::string_view value) {
  if (value.size() > 63) return invalid(value, "must be no more than 63 characters");
  if (!well_bracketed(value, is_lower_alnum, [](char c) { return c == '-'; })) {
    return invalid(value,
                   "must consist of lower case alphanumeric characters or '-', and must "
                   "start and end with an alphanumeric character");
  }
  return Status::ok();
}

Status validate_dns1123_subdomain(std::string_view value) {
  if (value.size() > 253) return invalid(value, "must be no more than 253 characters");
  // Each dot-separated part is a DNS-1123 label without the 63-character limit.
  size_t start = 0;
  for (;;) {
    size_t dot = value.find('.', start);
    std::string_view part = value.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (!well_bracketed(part, is_lower_alnum, [](char c) { return c == '-'; })) {
      return invalid(value,
                     "must consist of lower case alphanumeric characters, '-' or '.', and "
                     "must start and end with an alphanumeric character");
    }
    if (dot == std::string_view::npos) return Status::ok();
    start = dot + 1;
  }
}

namespace {

// The shape shared by a qualified name's name part and a label value: at most 63
// alphanumerics, '-', '_' or '.', alphanumeric at both ends. `part` prefixes the complaint.
Status check_label_shape(std::string_view whole, std::string_view value, std::string part) {
  if (value.size() > 63) return invalid(whole, part + "must be no more than 63 characters");
  if (!well_bracketed(value, is_alnum, [](char c) { return c == '-' || c == '_' || c == '.'; })) {
    return invalid(whole, part +
                              "must consist of alphanumeric characters, '-', '_' or '.', and "
                              "must start and end with an alphanumeric character");
  }
  return Status::ok();
}

}  // namespace

Status validate_qualified_name(std::string_view value) {
  std::string_view name = value;
  if (size_t slash = value.find('/'); slash != std::string_view::npos) {
    std::string_view prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (prefix.empty()) return invalid(value, "prefix part must be non-empty");
    if (Status s = validate_dns1123_subdomain(prefix); !s.is_ok()) {
      return invalid(value, "prefix part " + s.message());
    }
  }
  if (name.empty()) return invalid(value, "name part must be non-empty");
  return check_label_shape(value, name, "name part ");
}

Status validate_label_value(std::string_view value) {
  if (value.empty()) return Status::ok();
  return check_label_shape(value, value, "");
}

}  // namespace k3c::names
