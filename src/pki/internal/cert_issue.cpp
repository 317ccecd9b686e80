// Building and signing X.509 v3 certificates with OpenSSL 3's EVP and X509 APIs.
#include "pki/internal/cert_issue.h"

#include <openssl/ec.h>

#include "pki/internal/encoding.h"
#include "pki/internal/pem.h"

namespace k3c::pki::internal {
Status add_subject(X509_NAME* name, const Subject& subject) {
  auto add = [name](int nid, const std::string& value) {
    return X509_NAME_add_entry_by_NID(name, nid, MBSTRING_UTF8,
                                      reinterpret_cast<const unsigned char*>(value.c_str()),
                                      static_cast<int>(value.size()), -1, 0) == 1;
  };
  for (const std::string& org : subject.organizations) {
    if (!add(NID_organizationName, org)) {
      return openssl_error(Code::kInvalid, "certificate organization \"" + org + "\"");
    }
  }
  if (!subject.common_name.empty() && !add(NID_commonName, subject.common_name)) {
    return openssl_error(Code::kInvalid, "certificate common name \"" + subject.common_name + "\"");
  }
  return Status::ok();
}

Status set_random_serial(X509* cert) {
  ASSIGN_OR_RETURN(std::string bytes, random_bytes(16));
  BignumPtr bn(BN_bin2bn(reinterpret_cast<const unsigned char*>(bytes.data()), 16, nullptr));
  if (bn && BN_is_zero(bn.get())) BN_one(bn.get());  // a serial must be positive
  Asn1IntegerPtr serial(bn ? BN_to_ASN1_INTEGER(bn.get(), nullptr) : nullptr);
  if (!serial || X509_set_serialNumber(cert, serial.get()) != 1) {
    return openssl_error(Code::kInternal, "setting a certificate serial number");
  }
  return Status::ok();
}

Status add_ext(X509* cert, X509V3_CTX* ctx, int nid, const char* value) {
  X509ExtensionPtr ext(X509V3_EXT_nconf_nid(nullptr, ctx, nid, value));
  if (!ext || X509_add_ext(cert, ext.get(), -1) != 1) {
    return openssl_error(Code::kInternal, std::string("adding extension ") + OBJ_nid2sn(nid));
  }
  return Status::ok();
}

Status sign(X509* cert, EVP_PKEY* key) {
  if (X509_sign(cert, key, EVP_sha256()) <= 0) {
    return openssl_error(Code::kInternal, "signing a certificate");
  }
  return Status::ok();
}

Result<LoadedCa> load_ca(std::string_view cert_pem, std::string_view key_pem,
                         const std::string& name) {
  LoadedCa ca;
  ASSIGN_OR_RETURN(ca.cert, parse_cert_pem(cert_pem, name + " certificate"));
  ASSIGN_OR_RETURN(ca.key, parse_key_pem(key_pem, name + " key"));
  if (!key_matches(ca.cert.get(), ca.key.get())) {
    return error(Code::kInvalid, name + " certificate and key do not match");
  }
  return ca;
}

namespace {

// A v3 certificate with `subject`, `key`'s public key, a random serial and notAfter; no
// extensions, not signed.
Result<X509Ptr> new_cert(const Subject& subject, EVP_PKEY* key, std::time_t not_after) {
  X509Ptr cert(X509_new());
  if (!cert || X509_set_version(cert.get(), X509_VERSION_3) != 1 ||
      X509_set_pubkey(cert.get(), key) != 1 ||
      ASN1_TIME_set(X509_getm_notAfter(cert.get()), not_after) == nullptr) {
    return openssl_error(Code::kInternal, "building a certificate");
  }
  RETURN_IF_ERROR(set_random_serial(cert.get()));
  RETURN_IF_ERROR(add_subject(X509_get_subject_name(cert.get()), subject));
  return cert;
}

}  // namespace

Result<EvpPkeyPtr> generate_key() {
  EvpPkeyPtr key(EVP_EC_gen("P-256"));
  if (!key) return openssl_error(Code::kInternal, "generating an ECDSA P-256 key");
  return key;
}

Result<X509Ptr> make_ca_cert(const Subject& subject, EVP_PKEY* key, std::time_t now) {
  ASSIGN_OR_RETURN(X509Ptr cert, new_cert(subject, key, now + kCaValidity.count()));
  if (ASN1_TIME_set(X509_getm_notBefore(cert.get()), now) == nullptr ||
      X509_set_issuer_name(cert.get(), X509_get_subject_name(cert.get())) != 1) {
    return openssl_error(Code::kInternal, "building a CA certificate");
  }
  X509V3_CTX ctx;
  X509V3_set_ctx(&ctx, cert.get(), cert.get(), nullptr, nullptr, 0);
  RETURN_IF_ERROR(add_ext(cert.get(), &ctx, NID_basic_constraints, "critical,CA:TRUE"));
  RETURN_IF_ERROR(
      add_ext(cert.get(), &ctx, NID_key_usage, "critical,digitalSignature,keyCertSign,cRLSign"));
  RETURN_IF_ERROR(add_ext(cert.get(), &ctx, NID_subject_key_identifier, "hash"));
  RETURN_IF_ERROR(sign(cert.get(), key));
  return cert;
}

Result<X509Ptr> make_leaf_cert(const LeafRequest& request, EVP_PKEY* key, const Signer& ca,
                               std::time_t now) {
  ASSIGN_OR_RETURN(X509Ptr cert, new_cert(request.subject, key, now + kLeafValidity.count()));
  if (X509_set1_notBefore(cert.get(), X509_get0_notBefore(ca.cert)) != 1 ||
      X509_set_issuer_name(cert.get(), X509_get_subject_name(ca.cert)) != 1) {
    return openssl_error(Code::kInternal, "building a certificate");
  }
  X509V3_CTX ctx;
  X509V3_set_ctx(&ctx, ca.cert, cert.get(), nullptr, nullptr, 0);
  bool serving = request.kind == CertKind::kServing;
  RETURN_IF_ERROR(add_ext(cert.get(), &ctx, NID_basic_constraints, "critical,CA:FALSE"));
  // digitalSignature only: an ECDSA key signs the handshake and never enciphers keys.
  RETURN_IF_ERROR(add_ext(cert.get(), &ctx, NID_key_usage, "critical,digitalSignature"));
  RETURN_IF_ERROR(
      add_ext(cert.get(), &ctx, NID_ext_key_usage, serving ? "serverAuth" : "clientAuth"));
  RETURN_IF_ERROR(add_ext(cert.get(), &ctx, NID_authority_key_identifier, "keyid:always"));
  if (serving) {
    ASSIGN_OR_RETURN(GeneralNamesPtr names, to_general_names(request.sans));
    if (X509_add1_ext_i2d(cert.get(), NID_subject_alt_name, names.get(), 0, 0) != 1) {
      return openssl_error(Code::kInternal, "adding subjectAltName");
    }
  }
  RETURN_IF_ERROR(sign(cert.get(), ca.key));
  return cert;
}

}  // namespace k3c::pki::internal
