// Reading what a certificate says: its subject, issuer, validity and key.
#pragma once

#include <ctime>
#include <string>
#include <vector>

#include "pki/internal/ossl.h"

namespace k3c::pki::internal {

struct Subject {
  std::string common_name;                 // "" when absent
  std::vector<std::string> organizations;  // in certificate order
  bool operator==(const Subject&) const = default;
};

Subject subject_of(const X509* cert);

// True when `ca` names and signed `cert` (issuer name, key identifiers, signature).
bool issued_by(X509* cert, X509* ca);

// True when `cert` is no longer valid at time `t` (notAfter before t).
bool expires_before(const X509* cert, std::time_t t);

// True when `key` is the private key of `cert`'s public key.
bool key_matches(const X509* cert, const EVP_PKEY* key);

// The certificate's notAfter as "YYYY-MM-DD HH:MM:SS UTC", for messages.
std::string not_after_text(const X509* cert);

}  // namespace k3c::pki::internal
