// Kubernetes name rules (see names.h). The sentences follow upstream's
// k8s.io/apimachinery/pkg/util/validation wording, which kubectl users know.
#include "core/names.h"

#include <string>

namespace k3c::names {
namespace {

bool is_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool is_alnum(char c) { return is_lower_alnum(c) || (c >= 'A' && c <= 'Z'); }

// Alphanumeric at both ends, `inner` allowed in between.
template <typename Inner>
bool well_bracketed(std::string_view value, bool (*edge)(char), Inner inner) {
  if (value.empty() || !edge(value.front()) || !edge(value.back())) return false;
  for (char c : value) {
    if (!edge(c) && !inner(c)) return false;
  }
  return true;
}

bool is_label(std::string_view v) {
  return well_bracketed(v, is_lower_alnum, [](char c) { return c == '-'; });
}

bool is_subdomain(std::string_view value) {
  // Each dot-separated part is a DNS-1123 label without the 63-character limit.
  size_t start = 0;
  for (;;) {
    size_t dot = value.find('.', start);
    if (!is_label(value.substr(start, dot == std::string_view::npos ? dot : dot - start)))
      return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

bool is_label_shape(std::string_view v) {
  return well_bracketed(v, is_alnum, [](char c) { return c == '-' || c == '_' || c == '.'; });
}

std::string too_long(size_t max) {
  return "must be no more than " + std::to_string(max) + " characters";
}

// Upstream's regex complaint: the rule, examples, and the regular expression it checks.
std::string regex_error(std::string rule, std::initializer_list<const char*> examples,
                        const char* regex) {
  rule += " (e.g. ";
  bool first = true;
  for (const char* e : examples) {
    if (!first) rule += " or ";
    first = false;
    rule += "'" + std::string(e) + "', ";
  }
  return rule + "regex used for validation is '" + regex + "')";
}

constexpr const char* kLabelRegex = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
constexpr const char* kSubdomainRegex =
    "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
constexpr const char* kQualifiedRegex = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
constexpr const char* kLabelValueRegex = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";

Status first_problem(std::string_view value, const std::vector<std::string>& problems) {
  if (problems.empty()) return Status::ok();
  return error(Code::kInvalid, "\"" + std::string(value) + "\": " + problems.front());
}

}  // namespace

std::vector<std::string> dns1123_label_problems(std::string_view value) {
  std::vector<std::string> out;
  if (value.size() > 63) out.push_back(too_long(63));
  if (!is_label(value)) {
    out.push_back(
        regex_error("a lowercase RFC 1123 label must consist of lower case alphanumeric "
                    "characters or '-', and must start and end with an alphanumeric "
                    "character",
                    {"my-name", "123-abc"}, kLabelRegex));
  }
  return out;
}

std::vector<std::string> dns1123_subdomain_problems(std::string_view value) {
  std::vector<std::string> out;
  if (value.size() > 253) out.push_back(too_long(253));
  if (!is_subdomain(value)) {
    out.push_back(regex_error(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' "
        "or '.', and must start and end with an alphanumeric character",
        {"example.com"}, kSubdomainRegex));
  }
  return out;
}

std::vector<std::string> qualified_name_problems(std::string_view value) {
  std::vector<std::string> out;
  std::string_view name = value;
  if (size_t slash = value.find('/'); slash != std::string_view::npos) {
    std::string_view prefix = value.substr(0, slash);
    name = value.substr(slash + 1);
    if (name.find('/') != std::string_view::npos) {
      out.push_back(regex_error("a qualified name must consist of alphanumeric characters, '-', "
                                "'_' or '.', and must start and end with an alphanumeric "
                                "character",
                                {"MyName", "my.name", "123-abc"}, kQualifiedRegex) +
                    " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
      return out;
    }
    if (prefix.empty()) {
      out.push_back("prefix part must be non-empty");
    } else {
      for (const auto& p : dns1123_subdomain_problems(prefix)) out.push_back("prefix part " + p);
    }
  }
  if (name.empty()) {
    out.push_back("name part must be non-empty");
    return out;
  }
  if (name.size() > 63) out.push_back("name part " + too_long(63));
  if (!is_label_shape(name)) {
    out.push_back(
        regex_error("name part must consist of alphanumeric characters, '-', '_' or "
                    "'.', and must start and end with an alphanumeric character",
                    {"MyName", "my.name", "123-abc"}, kQualifiedRegex));
  }
  return out;
}

std::vector<std::string> label_value_problems(std::string_view value) {
  std::vector<std::string> out;
  if (value.empty()) return out;
  if (value.size() > 63) out.push_back(too_long(63));
  if (!is_label_shape(value)) {
    out.push_back(
        regex_error("a valid label must be an empty string or consist of alphanumeric "
                    "characters, '-', '_' or '.', and must start and end with an "
                    "alphanumeric character",
                    {"MyValue", "my_value", "12345"}, kLabelValueRegex));
  }
  return out;
}

Status validate_dns1123_label(std::string_view v) {
  return first_problem(v, dns1123_label_problems(v));
}
Status validate_dns1123_subdomain(std::string_view v) {
  return first_problem(v, dns1123_subdomain_problems(v));
}
Status validate_qualified_name(std::string_view v) {
  return first_problem(v, qualified_name_problems(v));
}
Status validate_label_value(std::string_view v) {
  return first_problem(v, label_value_problems(v));
}

}  // namespace k3c::names
