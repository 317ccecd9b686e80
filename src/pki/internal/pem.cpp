// PEM parsing and encoding through memory BIOs.
#include "pki/internal/pem.h"

#include <openssl/err.h>
#include <openssl/pem.h>

#include <climits>

namespace k3c::pki::internal {
namespace {

Result<BioPtr> read_bio(std::string_view pem, std::string_view source) {
  if (pem.size() > INT_MAX) return error(Code::kCorrupt, std::string(source) + ": too large");
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) return openssl_error(Code::kInternal, "BIO_new_mem_buf");
  return bio;
}

Result<std::string> bio_contents(BIO* bio) {
  char* data = nullptr;
  long len = BIO_get_mem_data(bio, &data);
  if (len < 0 || (len > 0 && data == nullptr)) {
    return openssl_error(Code::kInternal, "BIO_get_mem_data");
  }
  return std::string(data, static_cast<size_t>(len));
}

// The passphrase callback: refuses, so an encrypted key fails instead of prompting.
int no_passphrase(char*, int, int, void*) { return -1; }

}  // namespace

Result<X509Ptr> parse_cert_pem(std::string_view pem, std::string_view source) {
  ERR_clear_error();
  ASSIGN_OR_RETURN(BioPtr bio, read_bio(pem, source));
  X509Ptr cert(PEM_read_bio_X509(bio.get(), nullptr, no_passphrase, nullptr));
  if (!cert) {
    return openssl_error(Code::kCorrupt, std::string(source) + ": not a PEM certificate");
  }
  return cert;
}

Result<EvpPkeyPtr> parse_key_pem(std::string_view pem, std::string_view source) {
  ERR_clear_error();
  ASSIGN_OR_RETURN(BioPtr bio, read_bio(pem, source));
  EvpPkeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, no_passphrase, nullptr));
  if (!key) {
    return openssl_error(Code::kCorrupt,
                         std::string(source) + ": not an unencrypted PEM private key");
  }
  return key;
}

Result<std::string> cert_to_pem(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_X509(bio.get(), cert) != 1) {
    return openssl_error(Code::kInternal, "encoding a certificate as PEM");
  }
  return bio_contents(bio.get());
}

Result<std::string> key_to_pem(const EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_PrivateKey_traditional(bio.get(), key, nullptr, nullptr, 0, nullptr,
                                                   nullptr) != 1) {
    return openssl_error(Code::kInternal, "encoding a private key as PEM");
  }
  return bio_contents(bio.get());
}

}  // namespace k3c::pki::internal
