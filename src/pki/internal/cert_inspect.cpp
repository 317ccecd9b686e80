// Subject, issuer, validity and key checks over OpenSSL's X509 accessors.
#include "pki/internal/cert_inspect.h"

#include <openssl/err.h>

namespace k3c::pki::internal {
namespace {

std::string utf8_of(const X509_NAME_ENTRY* entry) {
  unsigned char* utf8 = nullptr;
  int len = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(entry));
  if (len < 0) return "";
  std::string out(reinterpret_cast<char*>(utf8), static_cast<size_t>(len));
  OPENSSL_free(utf8);
  return out;
}

}  // namespace

Subject subject_of(const X509* cert) {
  Subject subject;
  const X509_NAME* name = X509_get_subject_name(cert);
  for (int i = 0; i < X509_NAME_entry_count(name); ++i) {
    const X509_NAME_ENTRY* entry = X509_NAME_get_entry(name, i);
    int nid = OBJ_obj2nid(X509_NAME_ENTRY_get_object(entry));
    // Kubernetes takes the first CN as the user name.
    if (nid == NID_commonName && subject.common_name.empty()) {
      subject.common_name = utf8_of(entry);
    } else if (nid == NID_organizationName) {
      subject.organizations.push_back(utf8_of(entry));
    }
  }
  return subject;
}

bool issued_by(X509* cert, X509* ca) {
  bool ok =
      X509_check_issued(ca, cert) == X509_V_OK && X509_verify(cert, X509_get0_pubkey(ca)) == 1;
  ERR_clear_error();  // a "no" answer is not an error to report later
  return ok;
}

bool expires_before(const X509* cert, std::time_t t) {
  return ASN1_TIME_cmp_time_t(X509_get0_notAfter(cert), t) < 0;
}

bool key_matches(const X509* cert, const EVP_PKEY* key) {
  bool ok = EVP_PKEY_eq(X509_get0_pubkey(cert), key) == 1;
  ERR_clear_error();
  return ok;
}

std::string not_after_text(const X509* cert) {
  std::tm tm{};
  if (ASN1_TIME_to_tm(X509_get0_notAfter(cert), &tm) != 1) return "(unreadable time)";
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
  return buf;
}

}  // namespace k3c::pki::internal
