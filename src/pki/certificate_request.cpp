// Checks of PEM texts that CertificateSigningRequests carry (see pki.h), in the words of
// Go's encoding/pem and crypto/x509, which upstream's validation quotes.
#include <openssl/err.h>
#include <openssl/pem.h>

#include <algorithm>
#include <chrono>
#include <map>

#include "core/go_format.h"
#include "pki/internal/cert_inspect.h"
#include "pki/internal/cert_issue.h"
#include "pki/internal/ossl.h"
#include "pki/internal/pem.h"
#include "pki/pki.h"

namespace k3c::pki {
namespace {

using internal::BioPtr;

// One PEM block: its type, whether it has headers, and its bytes.
struct PemBlock {
  std::string type;
  bool headers = false;
  std::string der;
};

// The next PEM block of `bio` (Go's pem.Decode skips text before it); nullopt when none is
// left. The thread's OpenSSL error queue is left empty.
std::optional<PemBlock> next_block(BIO* bio) {
  char* name = nullptr;
  char* header = nullptr;
  unsigned char* data = nullptr;
  long length = 0;
  if (PEM_read_bio(bio, &name, &header, &data, &length) != 1) {
    ERR_clear_error();
    return std::nullopt;
  }
  PemBlock block{name, header && header[0] != '\0',
                 std::string(reinterpret_cast<char*>(data), static_cast<size_t>(length))};
  OPENSSL_free(name);
  OPENSSL_free(header);
  OPENSSL_free(data);
  return block;
}

BioPtr read_only(std::string_view pem) {
  return BioPtr(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
}

// What Go's CheckSignature says when a request's signature does not verify, by key type.
std::string signature_failure(const EVP_PKEY* key) {
  switch (key ? EVP_PKEY_get_base_id(key) : 0) {
    case EVP_PKEY_RSA:
    case EVP_PKEY_RSA_PSS:
      return "crypto/rsa: verification error";
    case EVP_PKEY_EC:
      return "x509: ECDSA verification failure";
    case EVP_PKEY_ED25519:
      return "x509: Ed25519 verification failure";
    default:
      return "x509: cannot verify signature: algorithm unimplemented";
  }
}

using ReqPtr = std::unique_ptr<X509_REQ, internal::Free<X509_REQ_free>>;

// The request in `pem` parsed, and its signature checked.
Result<ReqPtr> parse_request(std::string_view pem) {
  if (pem.size() > static_cast<size_t>(INT32_MAX)) return error(Code::kInvalid, "too large");
  BioPtr bio = read_only(pem);
  auto block = bio ? next_block(bio.get()) : std::nullopt;
  if (!block || block->type != "CERTIFICATE REQUEST") {
    return error(Code::kInvalid, "PEM block type must be CERTIFICATE REQUEST");
  }
  const auto* p = reinterpret_cast<const unsigned char*>(block->der.data());
  ReqPtr req(d2i_X509_REQ(nullptr, &p, static_cast<long>(block->der.size())));
  if (!req) {
    ERR_clear_error();
    return error(Code::kInvalid, "x509: malformed certificate request");
  }
  EVP_PKEY* key = X509_REQ_get0_pubkey(req.get());
  const bool verified = key && X509_REQ_verify(req.get(), key) == 1;
  ERR_clear_error();
  if (!verified) return error(Code::kInvalid, signature_failure(key));
  return req;
}

// The request's subjectAltName extension (null when it has none).
internal::GeneralNamesPtr requested_names(X509_REQ* req) {
  STACK_OF(X509_EXTENSION)* exts = X509_REQ_get_extensions(req);
  internal::GeneralNamesPtr names(exts ? static_cast<GENERAL_NAMES*>(X509V3_get_d2i(
                                             exts, NID_subject_alt_name, nullptr, nullptr))
                                       : nullptr);
  sk_X509_EXTENSION_pop_free(exts, X509_EXTENSION_free);
  ERR_clear_error();
  return names;
}

// Kubernetes key usage names as OpenSSL's extension values: key usages, extended ones.
const std::map<std::string, std::pair<const char*, bool>>& usage_names() {
  static const std::map<std::string, std::pair<const char*, bool>> names = {
      {"signing", {"digitalSignature", false}},
      {"digital signature", {"digitalSignature", false}},
      {"content commitment", {"nonRepudiation", false}},
      {"key encipherment", {"keyEncipherment", false}},
      {"key agreement", {"keyAgreement", false}},
      {"data encipherment", {"dataEncipherment", false}},
      {"cert sign", {"keyCertSign", false}},
      {"crl sign", {"cRLSign", false}},
      {"encipher only", {"encipherOnly", false}},
      {"decipher only", {"decipherOnly", false}},
      {"any", {"anyExtendedKeyUsage", true}},
      {"server auth", {"serverAuth", true}},
      {"client auth", {"clientAuth", true}},
      {"code signing", {"codeSigning", true}},
      {"email protection", {"emailProtection", true}},
      {"s/mime", {"emailProtection", true}},
      {"ipsec end system", {"ipsecEndSystem", true}},
      {"ipsec tunnel", {"ipsecTunnel", true}},
      {"ipsec user", {"ipsecUser", true}},
      {"timestamping", {"timeStamping", true}},
      {"ocsp signing", {"OCSPSigning", true}},
      {"microsoft sgc", {"msSGC", true}},
      {"netscape sgc", {"nsSGC", true}},
  };
  return names;
}

}  // namespace

const std::vector<std::string>& key_usage_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& [name, openssl] : usage_names()) out.push_back(name);  // a map: sorted
    return out;
  }();
  return names;
}

Result<CertificateRequestInfo> read_certificate_request(std::string_view pem) {
  ASSIGN_OR_RETURN(ReqPtr req, parse_request(pem));
  CertificateRequestInfo info;
  X509_NAME* subject = X509_REQ_get_subject_name(req.get());
  for (int i = 0; i < X509_NAME_entry_count(subject); ++i) {
    X509_NAME_ENTRY* entry = X509_NAME_get_entry(subject, i);
    const int nid = OBJ_obj2nid(X509_NAME_ENTRY_get_object(entry));
    const ASN1_STRING* value = X509_NAME_ENTRY_get_data(entry);
    std::string text(reinterpret_cast<const char*>(ASN1_STRING_get0_data(value)),
                     static_cast<size_t>(ASN1_STRING_length(value)));
    if (nid == NID_commonName) info.common_name = text;  // the last one, as Go keeps
    if (nid == NID_organizationName) info.organizations.push_back(text);
  }
  if (internal::GeneralNamesPtr names = requested_names(req.get())) {
    for (int i = 0; i < sk_GENERAL_NAME_num(names.get()); ++i) {
      switch (sk_GENERAL_NAME_value(names.get(), i)->type) {
        case GEN_DNS:
          ++info.dns_names;
          break;
        case GEN_IPADD:
          ++info.ip_addresses;
          break;
        case GEN_EMAIL:
          ++info.email_addresses;
          break;
        case GEN_URI:
          ++info.uris;
          break;
        default:
          break;
      }
    }
  }
  return info;
}

Result<std::string> sign_certificate_request(const CertKey& ca, std::string_view csr_pem,
                                             const CsrSigningPolicy& policy) {
  ASSIGN_OR_RETURN(ReqPtr req, parse_request(csr_pem));
  ASSIGN_OR_RETURN(internal::LoadedCa signing,
                   internal::load_ca(ca.cert_pem, ca.key_pem, "signing CA"));
  X509* ca_cert = signing.cert.get();
  std::vector<std::string> key_usages, extended;
  for (const std::string& u : policy.usages) {
    auto it = usage_names().find(u);
    if (it == usage_names().end()) return error(Code::kInvalid, "unrecognized usage: " + u);
    auto& list = it->second.second ? extended : key_usages;
    if (std::find(list.begin(), list.end(), std::string(it->second.first)) == list.end())
      list.push_back(it->second.first);
  }
  const Clock& clock = policy.clock ? *policy.clock : SystemClock::instance();
  const std::time_t now = std::chrono::system_clock::to_time_t(clock.wall_now());
  // Backdated for clock skew; a short-lived certificate keeps its whole lifetime.
  constexpr std::time_t kBackdate = 5 * 60, kShort = 8 * 3600;
  const std::time_t ttl = policy.ttl.count();
  std::time_t not_after = ttl < kShort ? now + ttl : now + ttl - kBackdate;
  if (internal::expires_before(ca_cert, now + 1)) {
    return error(
        Code::kInvalid,
        "refusing to sign a certificate that expired in the past: the signing CA has expired");
  }
  internal::X509Ptr cert(X509_new());
  if (!cert || X509_set_version(cert.get(), X509_VERSION_3) != 1 ||
      X509_set_pubkey(cert.get(), X509_REQ_get0_pubkey(req.get())) != 1 ||
      X509_set_subject_name(cert.get(), X509_REQ_get_subject_name(req.get())) != 1 ||
      X509_set_issuer_name(cert.get(), X509_get_subject_name(ca_cert)) != 1 ||
      ASN1_TIME_set(X509_getm_notBefore(cert.get()), now - kBackdate) == nullptr ||
      ASN1_TIME_set(X509_getm_notAfter(cert.get()), not_after) == nullptr) {
    return internal::openssl_error(Code::kInternal, "building a certificate");
  }
  // Not past the CA's own end.
  if (ASN1_TIME_compare(X509_get0_notAfter(cert.get()), X509_get0_notAfter(ca_cert)) > 0 &&
      X509_set1_notAfter(cert.get(), X509_get0_notAfter(ca_cert)) != 1) {
    return internal::openssl_error(Code::kInternal, "building a certificate");
  }
  RETURN_IF_ERROR(internal::set_random_serial(cert.get()));
  X509V3_CTX ctx;
  X509V3_set_ctx(&ctx, ca_cert, cert.get(), nullptr, nullptr, 0);
  auto joined = [](const std::vector<std::string>& items) {
    std::string out;
    for (const auto& i : items) out += (out.empty() ? "" : ",") + i;
    return out;
  };
  RETURN_IF_ERROR(internal::add_ext(cert.get(), &ctx, NID_basic_constraints, "critical,CA:FALSE"));
  if (!key_usages.empty()) {
    RETURN_IF_ERROR(internal::add_ext(cert.get(), &ctx, NID_key_usage,
                                      ("critical," + joined(key_usages)).c_str()));
  }
  if (!extended.empty()) {
    RETURN_IF_ERROR(
        internal::add_ext(cert.get(), &ctx, NID_ext_key_usage, joined(extended).c_str()));
  }
  if (X509_get_ext_by_NID(ca_cert, NID_subject_key_identifier, -1) >= 0) {
    RETURN_IF_ERROR(
        internal::add_ext(cert.get(), &ctx, NID_authority_key_identifier, "keyid:always"));
  }
  if (internal::GeneralNamesPtr names = requested_names(req.get())) {
    if (X509_add1_ext_i2d(cert.get(), NID_subject_alt_name, names.get(), 0, 0) != 1)
      return internal::openssl_error(Code::kInternal, "adding subjectAltName");
  }
  RETURN_IF_ERROR(internal::sign(cert.get(), signing.key.get()));
  return internal::cert_to_pem(cert.get());
}

Result<NewRequest> new_certificate_request(const ClientCertSpec& subject,
                                           const std::vector<std::string>& sans) {
  ASSIGN_OR_RETURN(internal::EvpPkeyPtr key, internal::generate_key());
  ReqPtr req(X509_REQ_new());
  if (!req || X509_REQ_set_pubkey(req.get(), key.get()) != 1)
    return internal::openssl_error(Code::kInternal, "building a certificate request");
  RETURN_IF_ERROR(internal::add_subject(X509_REQ_get_subject_name(req.get()),
                                        {subject.common_name, subject.organizations}));
  if (!sans.empty()) {
    ASSIGN_OR_RETURN(std::vector<internal::San> parsed, internal::parse_sans(sans));
    ASSIGN_OR_RETURN(internal::GeneralNamesPtr names, internal::to_general_names(parsed));
    internal::X509ExtensionPtr ext(X509V3_EXT_i2d(NID_subject_alt_name, 0, names.get()));
    STACK_OF(X509_EXTENSION)* exts = sk_X509_EXTENSION_new_null();
    // The stack borrows the extension (freed by `ext`), so it is freed without its items.
    const bool added = exts && ext && sk_X509_EXTENSION_push(exts, ext.get()) > 0 &&
                       X509_REQ_add_extensions(req.get(), exts) == 1;
    sk_X509_EXTENSION_free(exts);
    if (!added) return internal::openssl_error(Code::kInternal, "adding subjectAltName");
  }
  if (X509_REQ_sign(req.get(), key.get(), EVP_sha256()) <= 0)
    return internal::openssl_error(Code::kInternal, "signing a certificate request");
  BioPtr out(BIO_new(BIO_s_mem()));
  if (!out || PEM_write_bio_X509_REQ(out.get(), req.get()) != 1)
    return internal::openssl_error(Code::kInternal, "writing a certificate request");
  char* data = nullptr;
  const long length = BIO_get_mem_data(out.get(), &data);
  NewRequest made;
  made.csr_pem.assign(data, static_cast<size_t>(length));
  ASSIGN_OR_RETURN(made.key_pem, internal::key_to_pem(key.get()));
  return made;
}

Status check_certificate_request(std::string_view pem) { return parse_request(pem).status(); }

Status check_certificate_chain(std::string_view pem) {
  if (pem.empty()) return Status::ok();
  if (pem.size() > static_cast<size_t>(INT32_MAX)) return error(Code::kInvalid, "too large");
  BioPtr bio = read_only(pem);
  int blocks = 0;
  while (auto block = bio ? next_block(bio.get()) : std::nullopt) {
    if (block->type != "CERTIFICATE") {
      return error(Code::kInvalid,
                   "only CERTIFICATE PEM blocks are allowed, found " + go_quote(block->type));
    }
    if (block->headers) return error(Code::kInvalid, "no PEM block headers are permitted");
    ++blocks;
    const auto* p = reinterpret_cast<const unsigned char*>(block->der.data());
    internal::X509Ptr cert(d2i_X509(nullptr, &p, static_cast<long>(block->der.size())));
    if (!cert) {
      ERR_clear_error();
      return error(Code::kInvalid, "x509: malformed certificate");
    }
  }
  if (blocks == 0) return error(Code::kInvalid, "must contain at least one CERTIFICATE PEM block");
  return Status::ok();
}

}  // namespace k3c::pki
