// Parsing and comparing subject alternative names.
#include "pki/internal/san.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>

namespace k3c::pki::internal {
namespace {

bool looks_like_dns_name(std::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  if (name.starts_with("*.")) name.remove_prefix(2);
  if (name.empty() || name.front() == '.' || name.back() == '.') return false;
  return std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '-' || c == '_' || c == '.';
  });
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

std::string San::key() const { return (kind == Kind::kIp ? "IP:" : "DNS:") + bytes; }

Result<San> parse_san(std::string_view name) {
  std::string text(name);
  unsigned char addr[16];
  if (inet_pton(AF_INET, text.c_str(), addr) == 1) {
    return San{San::Kind::kIp, text, std::string(reinterpret_cast<char*>(addr), 4)};
  }
  if (inet_pton(AF_INET6, text.c_str(), addr) == 1) {
    return San{San::Kind::kIp, text, std::string(reinterpret_cast<char*>(addr), 16)};
  }
  if (!looks_like_dns_name(name)) {
    return error(Code::kInvalid, "subject alternative name \"" + text +
                                     "\" is neither an IP address nor a DNS name");
  }
  // For DNS names the comparable bytes are the lower-cased name itself.
  text = lower(std::move(text));
  return San{San::Kind::kDns, text, text};
}

Result<std::vector<San>> parse_sans(const std::vector<std::string>& names) {
  std::vector<San> out;
  std::set<std::string> seen;
  for (const std::string& name : names) {
    ASSIGN_OR_RETURN(San san, parse_san(name));
    if (seen.insert(san.key()).second) out.push_back(std::move(san));
  }
  return out;
}

std::set<std::string> san_keys_of(const X509* cert) {
  std::set<std::string> keys;
  GeneralNamesPtr names(
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr)));
  if (!names) return keys;
  for (int i = 0; i < sk_GENERAL_NAME_num(names.get()); ++i) {
    const GENERAL_NAME* gn = sk_GENERAL_NAME_value(names.get(), i);
    if (gn->type != GEN_DNS && gn->type != GEN_IPADD) continue;
    const ASN1_STRING* s = gn->type == GEN_DNS ? gn->d.dNSName : gn->d.iPAddress;
    std::string value(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
                      static_cast<size_t>(ASN1_STRING_length(s)));
    keys.insert(gn->type == GEN_IPADD ? "IP:" + value : "DNS:" + lower(std::move(value)));
  }
  return keys;
}

Result<GeneralNamesPtr> to_general_names(const std::vector<San>& sans) {
  GeneralNamesPtr names(sk_GENERAL_NAME_new_null());
  if (!names) return openssl_error(Code::kInternal, "allocating subjectAltName");
  for (const San& san : sans) {
    bool ip = san.kind == San::Kind::kIp;
    GeneralNamePtr gn(GENERAL_NAME_new());
    Asn1StringPtr value(ip ? ASN1_OCTET_STRING_new() : ASN1_IA5STRING_new());
    if (!gn || !value ||
        ASN1_STRING_set(value.get(), san.bytes.data(), static_cast<int>(san.bytes.size())) != 1) {
      return openssl_error(Code::kInternal, "building subjectAltName " + san.text);
    }
    GENERAL_NAME_set0_value(gn.get(), ip ? GEN_IPADD : GEN_DNS, value.release());
    if (sk_GENERAL_NAME_push(names.get(), gn.get()) == 0) {
      return openssl_error(Code::kInternal, "building subjectAltName " + san.text);
    }
    gn.release();  // the stack owns it now
  }
  return names;
}

}  // namespace k3c::pki::internal
