// RAII owners for the OpenSSL objects this module uses, and the conversion of OpenSSL's
// thread-local error queue into a Status.
#pragma once

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>
#include <string_view>

#include "core/status.h"

namespace k3c::pki::internal {

// A deleter that calls OpenSSL's free function `fn`.
template <auto fn>
struct Free {
  template <typename T>
  void operator()(T* p) const {
    fn(p);
  }
};

using X509Ptr = std::unique_ptr<X509, Free<X509_free>>;
using EvpPkeyPtr = std::unique_ptr<EVP_PKEY, Free<EVP_PKEY_free>>;
using BioPtr = std::unique_ptr<BIO, Free<BIO_free_all>>;
using BignumPtr = std::unique_ptr<BIGNUM, Free<BN_free>>;
using Asn1IntegerPtr = std::unique_ptr<ASN1_INTEGER, Free<ASN1_INTEGER_free>>;
using Asn1StringPtr = std::unique_ptr<ASN1_STRING, Free<ASN1_STRING_free>>;
using X509ExtensionPtr = std::unique_ptr<X509_EXTENSION, Free<X509_EXTENSION_free>>;
using GeneralNamesPtr = std::unique_ptr<GENERAL_NAMES, Free<GENERAL_NAMES_free>>;
using GeneralNamePtr = std::unique_ptr<GENERAL_NAME, Free<GENERAL_NAME_free>>;
using X509NamePtr = std::unique_ptr<X509_NAME, Free<X509_NAME_free>>;
using SslPtr = std::unique_ptr<SSL, Free<SSL_free>>;

// `what` followed by every error on this thread's OpenSSL error queue (which it empties),
// e.g. "reading server-ca.key: error:1E08010C:DECODER routines::unsupported".
Status openssl_error(Code code, std::string_view what);

}  // namespace k3c::pki::internal
