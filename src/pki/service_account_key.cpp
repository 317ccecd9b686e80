// The service-account signing keys under <data-dir>/server/tls (k3s's service.key and
// service.current.key).
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <algorithm>

#include "pki/internal/files.h"
#include "pki/internal/ossl.h"
#include "pki/pki.h"

namespace k3c::pki {
namespace {

Result<std::string> new_rsa_key_pem() {
  ERR_clear_error();
  internal::EvpPkeyPtr key(EVP_RSA_gen(2048));
  if (!key) return internal::openssl_error(Code::kInternal, "generating an RSA key");
  internal::BioPtr bio(BIO_new(BIO_s_mem()));
  // "RSA PRIVATE KEY" (PKCS#1), as k3s writes service.key.
  if (!bio || PEM_write_bio_PrivateKey_traditional(bio.get(), key.get(), nullptr, nullptr, 0,
                                                   nullptr, nullptr) != 1) {
    return internal::openssl_error(Code::kInternal, "encoding an RSA key");
  }
  char* data = nullptr;
  long len = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(len));
}

// The PEM blocks of a file, each with its BEGIN and END lines.
std::vector<std::string> pem_blocks(const std::string& text) {
  std::vector<std::string> blocks;
  size_t pos = 0;
  while ((pos = text.find("-----BEGIN ", pos)) != std::string::npos) {
    size_t end = text.find("-----END ", pos);
    if (end == std::string::npos) break;
    size_t close = text.find("-----", end + 9);
    if (close == std::string::npos) break;
    blocks.push_back(text.substr(pos, close + 5 - pos) + "\n");
    pos = close + 5;
  }
  return blocks;
}

bool is_private(const std::string& block) {
  return block.find("PRIVATE KEY-----") != std::string::npos;
}

}  // namespace

Result<ServiceAccountKeys> ensure_service_account_keys(const std::string& tls_dir) {
  const std::string all_path = tls_dir + "/service.key";
  const std::string current_path = tls_dir + "/service.current.key";
  ASSIGN_OR_RETURN(std::optional<std::string> all, internal::read_file_if_exists(all_path));
  ASSIGN_OR_RETURN(std::optional<std::string> current, internal::read_file_if_exists(current_path));
  std::vector<std::string> blocks = all ? pem_blocks(*all) : std::vector<std::string>{};
  if (all && blocks.empty()) return error(Code::kCorrupt, all_path + ": no PEM key in it");
  if (!current) {
    std::string pem;
    for (const auto& b : blocks) {
      if (is_private(b)) {
        pem = b;
        break;
      }
    }
    if (pem.empty() && all) {
      return error(Code::kCorrupt, all_path + " holds no private key and " + current_path +
                                       " does not exist: no key to sign tokens with");
    }
    if (pem.empty()) {
      ASSIGN_OR_RETURN(pem, new_rsa_key_pem());
    }
    RETURN_IF_ERROR(internal::write_file_atomic(current_path, pem, 0600));
    current = pem;
  }
  std::vector<std::string> current_blocks = pem_blocks(*current);
  if (current_blocks.size() != 1 || !is_private(current_blocks[0])) {
    return error(Code::kCorrupt, current_path + ": expected one PEM private key");
  }
  if (std::find(blocks.begin(), blocks.end(), current_blocks[0]) == blocks.end()) {
    // Tokens signed with the current key must verify: it joins the accepted keys.
    blocks.push_back(current_blocks[0]);
    std::string text;
    for (const auto& b : blocks) text += b;
    RETURN_IF_ERROR(internal::write_file_atomic(all_path, text, 0600));
  }
  // Both files are checked now, not at the first token: a bad key stops the server start.
  ASSIGN_OR_RETURN(JwtSigner signer, JwtSigner::from_pem(current_blocks[0]));
  (void)signer;
  ASSIGN_OR_RETURN(JwtVerifier verifier, JwtVerifier::from_pems(blocks));
  (void)verifier;
  return ServiceAccountKeys{current_blocks[0], blocks};
}

}  // namespace k3c::pki
