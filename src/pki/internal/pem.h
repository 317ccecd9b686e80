// PEM text <-> OpenSSL certificates and private keys. `source` in each error names where
// the text came from (a file path, "client CA certificate").
#pragma once

#include <string>
#include <string_view>

#include "core/status.h"
#include "pki/internal/ossl.h"

namespace k3c::pki::internal {

// The first certificate in `pem`; kCorrupt when there is none or it does not parse.
Result<X509Ptr> parse_cert_pem(std::string_view pem, std::string_view source);
// An unencrypted private key (PKCS#8, SEC1 or PKCS#1); kCorrupt when it does not parse.
// Never prompts for a passphrase: an encrypted key is an error.
Result<EvpPkeyPtr> parse_key_pem(std::string_view pem, std::string_view source);

Result<std::string> cert_to_pem(X509* cert);
// SEC1 "EC PRIVATE KEY" for EC keys, as k3s writes them.
Result<std::string> key_to_pem(const EVP_PKEY* key);

}  // namespace k3c::pki::internal
