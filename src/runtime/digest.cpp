// sha256 digests (see digest.h).
#include "runtime/digest.h"

#include <openssl/evp.h>

namespace k3c::runtime {

struct Sha256::State {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  ~State() { EVP_MD_CTX_free(ctx); }
};

Sha256::Sha256() : state_(std::make_unique<State>()) {
  EVP_DigestInit_ex(state_->ctx, EVP_sha256(), nullptr);
}
Sha256::~Sha256() = default;
Sha256::Sha256(Sha256&&) noexcept = default;
Sha256& Sha256::operator=(Sha256&&) noexcept = default;

void Sha256::update(const void* data, size_t size) { EVP_DigestUpdate(state_->ctx, data, size); }

std::string Sha256::finish() {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_DigestFinal_ex(state_->ctx, md, &length);
  EVP_DigestInit_ex(state_->ctx, EVP_sha256(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string text = "sha256:";
  for (unsigned int i = 0; i < length; ++i) {
    text += kHex[md[i] >> 4];
    text += kHex[md[i] & 15];
  }
  return text;
}

std::string sha256_of(std::string_view bytes) {
  Sha256 hasher;
  hasher.update(bytes);
  return hasher.finish();
}

Status check_digest(std::string_view digest, std::string_view what) {
  bool ok = digest.size() == 71 && digest.starts_with("sha256:");
  for (size_t i = 7; ok && i < digest.size(); ++i) {
    const char c = digest[i];
    ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  }
  if (ok) return Status::ok();
  return error(Code::kInvalid, std::string(what) + ": invalid digest \"" + std::string(digest) +
                                   "\" (want sha256:<64 lowercase hex digits>)");
}

}  // namespace k3c::runtime
