// The k3s join token: K10<CA hash>::<username>:<password>, its parsing, and the server's
// token file.
#include <algorithm>
#include <cctype>

#include "core/text.h"
#include "pki/internal/encoding.h"
#include "pki/internal/files.h"
#include "pki/pki.h"

namespace k3c::pki {
namespace {

constexpr std::string_view kPrefix = "K10";
constexpr size_t kCaHashLength = 64;  // hex SHA-256

bool is_hex(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isxdigit(c); });
}

bool is_printable(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](unsigned char c) { return c > 0x20 && c < 0x7f; });
}

// A kubeadm bootstrap token: [a-z0-9]{6}.[a-z0-9]{16}.
bool is_bootstrap_token(std::string_view s) {
  auto lower_alnum = [](unsigned char c) { return std::islower(c) || std::isdigit(c); };
  return s.size() == 23 && s[6] == '.' && std::all_of(s.begin(), s.begin() + 6, lower_alnum) &&
         std::all_of(s.begin() + 7, s.end(), lower_alnum);
}

}  // namespace

Result<ParsedToken> parse_token(std::string_view token) {
  if (token.empty()) return error(Code::kInvalid, "token: empty");
  if (!is_printable(token)) {
    return error(Code::kInvalid, "token: contains whitespace or control characters");
  }
  ParsedToken parsed;
  std::string_view creds = token;
  bool full = token.starts_with(kPrefix);
  if (full) {
    // K10<hash>::<creds>; as in k3s, "K10<creds>" without "::" has no hash.
    creds.remove_prefix(kPrefix.size());
    if (size_t sep = creds.find("::"); sep != std::string_view::npos) {
      parsed.ca_hash = std::string(creds.substr(0, sep));
      creds.remove_prefix(sep + 2);
      if (!parsed.ca_hash.empty() &&
          (parsed.ca_hash.size() != kCaHashLength || !is_hex(parsed.ca_hash))) {
        return error(Code::kInvalid, "token: the CA hash after K10 is not 64 hex digits");
      }
    }
  }
  if (is_bootstrap_token(creds)) {
    return error(Code::kNotImplemented, "token: bootstrap tokens are not implemented");
  }
  if (!full) {
    parsed.password = std::string(creds);  // a bare password
    return parsed;
  }
  size_t colon = creds.find(':');
  if (colon == std::string_view::npos || colon + 1 == creds.size()) {
    return error(Code::kInvalid, "token: expected K10<CA hash>::<username>:<password>");
  }
  parsed.username = std::string(creds.substr(0, colon));
  parsed.password = std::string(creds.substr(colon + 1));
  return parsed;
}

Result<std::string> ca_hash(std::string_view ca_pem) {
  ASSIGN_OR_RETURN(std::string digest, internal::sha256(ca_pem));
  return internal::to_hex(digest);
}

Result<std::string> format_token(std::string_view ca_pem, std::string_view username,
                                 std::string_view password) {
  ASSIGN_OR_RETURN(std::string hash, ca_hash(ca_pem));
  return std::string(kPrefix) + hash + "::" + std::string(username) + ":" + std::string(password);
}

Result<std::string> ensure_server_token(const std::string& path, const std::string& ca_pem) {
  ASSIGN_OR_RETURN(std::string hash, ca_hash(ca_pem));
  ASSIGN_OR_RETURN(std::optional<std::string> existing, internal::read_file_if_exists(path));
  std::string username = "server";
  std::string password;
  if (existing) {
    std::string text = std::string(trim_space(*existing));
    Result<ParsedToken> parsed = parse_token(text);
    if (!parsed) return error(parsed.status().code(), path + ": " + parsed.status().message());
    if (parsed->ca_hash == hash && !parsed->username.empty()) return text;
    // The credentials are what agents hold; keep them and let the hash follow the CA.
    if (!parsed->username.empty()) username = parsed->username;
    password = parsed->password;
  } else {
    ASSIGN_OR_RETURN(std::string random, internal::random_bytes(16));
    password = internal::to_hex(random);
  }
  ASSIGN_OR_RETURN(std::string token, format_token(ca_pem, username, password));
  RETURN_IF_ERROR(internal::make_dirs(internal::parent_dir(path), 0700));
  RETURN_IF_ERROR(internal::write_file_atomic(path, token + "\n", 0600));
  return token;
}

}  // namespace k3c::pki
