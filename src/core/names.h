// Validation of Kubernetes names: DNS-1123 subdomains and labels, qualified names (label and
// taint keys) and label values, with the same rules and limits as Kubernetes.
#pragma once

#include <string_view>

#include "core/status.h"

namespace k3c::names {

// Lower-case alphanumerics, '-' and '.', starting and ending alphanumeric; at most 253
// characters (node names, cluster domains).
Status validate_dns1123_subdomain(std::string_view value);
// Lower-case alphanumerics and '-', starting and ending alphanumeric; at most 63 characters.
Status validate_dns1123_label(std::string_view value);
// `[prefix/]name`: prefix a DNS-1123 subdomain, name at most 63 alphanumerics, '-', '_' or
// '.', starting and ending alphanumeric (label keys, annotation keys, taint keys).
Status validate_qualified_name(std::string_view value);
// Empty, or at most 63 alphanumerics, '-', '_' or '.', starting and ending alphanumeric.
Status validate_label_value(std::string_view value);

}  // namespace k3c::names
