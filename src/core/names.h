// Validation of Kubernetes names: DNS-1123 subdomains and labels, qualified names (label and
// taint keys) and label values, with the same rules, limits and wording as Kubernetes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace k3c::names {

// What is wrong with a value, one sentence per broken rule in upstream's words (empty when
// the value is fine). The API server puts each after `Invalid value: "<value>": `.
//
// Lower-case alphanumerics, '-' and '.', starting and ending alphanumeric; at most 253
// characters (most object names, node names, cluster domains).
std::vector<std::string> dns1123_subdomain_problems(std::string_view value);
// Lower-case alphanumerics and '-', starting and ending alphanumeric; at most 63 characters
// (namespace and service names, container names).
std::vector<std::string> dns1123_label_problems(std::string_view value);
// `[prefix/]name`: prefix a DNS-1123 subdomain, name at most 63 alphanumerics, '-', '_' or
// '.', starting and ending alphanumeric (label keys, annotation keys, taint keys).
std::vector<std::string> qualified_name_problems(std::string_view value);
// Empty, or at most 63 alphanumerics, '-', '_' or '.', starting and ending alphanumeric.
std::vector<std::string> label_value_problems(std::string_view value);

// The same checks as a Status: kInvalid with `"<value>": <first problem>`.
Status validate_dns1123_subdomain(std::string_view value);
Status validate_dns1123_label(std::string_view value);
Status validate_qualified_name(std::string_view value);
Status validate_label_value(std::string_view value);

}  // namespace k3c::names
