// Subject alternative names: parsing requested names (IP address or DNS name, decided by
// parsing) and reading the names a certificate carries, in one comparable form.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "pki/internal/ossl.h"

namespace k3c::pki::internal {

struct San {
  enum class Kind { kDns, kIp };
  Kind kind = Kind::kDns;
  std::string text;   // DNS name in lower case, or the IP address as given
  std::string bytes;  // kIp: the 4 or 16 address bytes
  // The comparable form: "DNS:<name>" or "IP:<bytes>"; equal names compare equal.
  std::string key() const;
};

// An IPv4/IPv6 address becomes an IP SAN; anything else must look like a DNS name (letters,
// digits, '-', '_', '.', a leading "*."), else kInvalid.
Result<San> parse_san(std::string_view name);

// `names` parsed, duplicates dropped, first occurrence kept in order.
Result<std::vector<San>> parse_sans(const std::vector<std::string>& names);

// The DNS and IP SANs of `cert`, as San::key() strings.
std::set<std::string> san_keys_of(const X509* cert);

// The subjectAltName extension for `sans`.
Result<GeneralNamesPtr> to_general_names(const std::vector<San>& sans);

}  // namespace k3c::pki::internal
