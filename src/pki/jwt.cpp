// RS256 JSON Web Tokens (compact serialization) for service-account tokens.
#include <openssl/err.h>
#include <openssl/pem.h>

#include <climits>
#include <nlohmann/json.hpp>

#include "core/base64.h"
#include "pki/internal/encoding.h"
#include "pki/internal/ossl.h"
#include "pki/internal/pem.h"
#include "pki/pki.h"

namespace k3c::pki {
namespace {

using internal::EvpPkeyPtr;

// Tokens longer than this are refused before any work (upstream's are ~1 KB).
constexpr size_t kMaxTokenSize = 16 * 1024;

std::shared_ptr<EVP_PKEY> shared(EvpPkeyPtr key) {
  return std::shared_ptr<EVP_PKEY>(key.release(), EVP_PKEY_free);
}

// Upstream's key id: base64url(SHA-256(DER SubjectPublicKeyInfo)).
Result<std::string> key_id_of(EVP_PKEY* key) {
  unsigned char* der = nullptr;
  int len = i2d_PUBKEY(key, &der);
  if (len <= 0) return internal::openssl_error(Code::kInternal, "encoding a public key");
  std::string bytes(reinterpret_cast<char*>(der), static_cast<size_t>(len));
  OPENSSL_free(der);
  ASSIGN_OR_RETURN(std::string digest, internal::sha256(bytes));
  return base64url_encode(digest);
}

Result<std::shared_ptr<EVP_PKEY>> parse_any_key(const std::string& pem) {
  if (pem.find("PUBLIC KEY-----") != std::string::npos) {
    ERR_clear_error();
    if (pem.size() > INT_MAX) return error(Code::kInvalid, "public key too large");
    internal::BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
    EvpPkeyPtr key(bio ? PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr) : nullptr);
    if (!key) return internal::openssl_error(Code::kInvalid, "not a PEM public key");
    return shared(std::move(key));
  }
  auto key = internal::parse_key_pem(pem, "service-account key");
  if (!key.is_ok()) return error(Code::kInvalid, key.status().message());
  return shared(std::move(key).value());
}

Status require_rsa(EVP_PKEY* key) {
  if (EVP_PKEY_get_base_id(key) != EVP_PKEY_RSA) {
    return error(Code::kInvalid, "service-account keys must be RSA keys (tokens are RS256)");
  }
  return Status::ok();
}

}  // namespace

std::string base64url_encode(std::string_view bytes) {
  std::string s = base64_encode(bytes);
  while (!s.empty() && s.back() == '=') s.pop_back();
  for (char& c : s) {
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  return s;
}

std::optional<std::string> base64url_decode(std::string_view text) {
  std::string s(text);
  for (char& c : s) {
    // The standard alphabet's characters are not part of the URL-safe one.
    if (c == '+' || c == '/' || c == '=') return std::nullopt;
    if (c == '-') c = '+';
    if (c == '_') c = '/';
  }
  if (s.size() % 4 == 1) return std::nullopt;
  while (s.size() % 4 != 0) s += '=';
  return base64_decode(s);
}

Result<JwtSigner> JwtSigner::from_pem(std::string_view private_key_pem) {
  auto key = internal::parse_key_pem(private_key_pem, "service-account signing key");
  if (!key.is_ok()) return error(Code::kInvalid, key.status().message());
  JwtSigner signer;
  signer.key_ = shared(std::move(key).value());
  RETURN_IF_ERROR(require_rsa(signer.key_.get()));
  ASSIGN_OR_RETURN(signer.key_id_, key_id_of(signer.key_.get()));
  return signer;
}

Result<std::string> JwtSigner::sign(std::string_view claims_json) const {
  nlohmann::json header = {{"alg", "RS256"}, {"kid", key_id_}};
  std::string input = base64url_encode(header.dump()) + "." + base64url_encode(claims_json);
  internal::Free<EVP_MD_CTX_free> free_ctx;
  std::unique_ptr<EVP_MD_CTX, decltype(free_ctx)> ctx(EVP_MD_CTX_new());
  size_t len = 0;
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key_.get()) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &len, reinterpret_cast<const unsigned char*>(input.data()),
                     input.size()) != 1) {
    return internal::openssl_error(Code::kInternal, "signing a token");
  }
  std::string signature(len, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(signature.data()), &len,
                     reinterpret_cast<const unsigned char*>(input.data()), input.size()) != 1) {
    return internal::openssl_error(Code::kInternal, "signing a token");
  }
  signature.resize(len);
  return input + "." + base64url_encode(signature);
}

Result<JwtVerifier> JwtVerifier::from_pems(const std::vector<std::string>& key_pems) {
  JwtVerifier v;
  for (const auto& pem : key_pems) {
    ASSIGN_OR_RETURN(std::shared_ptr<EVP_PKEY> key, parse_any_key(pem));
    RETURN_IF_ERROR(require_rsa(key.get()));
    ASSIGN_OR_RETURN(std::string id, key_id_of(key.get()));
    v.keys_.push_back({std::move(key), std::move(id)});
  }
  return v;
}

Result<std::string> JwtVerifier::verify(std::string_view token) const {
  auto bad = [](std::string why) { return error(Code::kUnauthorized, "invalid token: " + why); };
  if (token.size() > kMaxTokenSize) return bad("too long");
  size_t dot1 = token.find('.');
  size_t dot2 = dot1 == std::string_view::npos ? dot1 : token.find('.', dot1 + 1);
  if (dot2 == std::string_view::npos || token.find('.', dot2 + 1) != std::string_view::npos) {
    return bad("not a compact JWS (header.payload.signature)");
  }
  auto header_text = base64url_decode(token.substr(0, dot1));
  auto payload = base64url_decode(token.substr(dot1 + 1, dot2 - dot1 - 1));
  auto signature = base64url_decode(token.substr(dot2 + 1));
  if (!header_text || !payload || !signature) return bad("malformed base64url");
  nlohmann::json header = nlohmann::json::parse(*header_text, nullptr, false);
  if (!header.is_object()) return bad("the header is not a JSON object");
  auto alg = header.find("alg");
  // Only RS256: "none" and HMAC algorithms (keyed with the public key) are the classic
  // forgeries.
  if (alg == header.end() || !alg->is_string() || *alg != "RS256") {
    return bad("unsupported signing algorithm");
  }
  if (header.contains("crit")) return bad("unsupported critical header");
  std::string kid = header.value("kid", "");
  std::string_view input = token.substr(0, dot2);
  for (const auto& k : keys_) {
    if (!kid.empty() && kid != k.id) continue;
    internal::Free<EVP_MD_CTX_free> free_ctx;
    std::unique_ptr<EVP_MD_CTX, decltype(free_ctx)> ctx(EVP_MD_CTX_new());
    if (!ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr, k.key.get()) != 1) {
      return internal::openssl_error(Code::kInternal, "verifying a token");
    }
    int ok = EVP_DigestVerify(ctx.get(), reinterpret_cast<const unsigned char*>(signature->data()),
                              signature->size(),
                              reinterpret_cast<const unsigned char*>(input.data()), input.size());
    ERR_clear_error();  // a mismatch leaves errors queued; they say nothing more than `ok`
    if (ok == 1) return std::move(*payload);
  }
  return bad("the signature does not verify");
}

}  // namespace k3c::pki
