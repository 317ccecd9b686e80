// sha256 digests as OCI writes them ("sha256:<64 lowercase hex>"): a streaming hasher over
// OpenSSL's EVP interface and the checks every digest read from outside input goes through.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "core/status.h"

namespace k3c::runtime {

// Feeds bytes in, gives "sha256:<hex>" out. One thread at a time.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(Sha256&&) noexcept;
  Sha256& operator=(Sha256&&) noexcept;

  void update(const void* data, size_t size);
  void update(std::string_view bytes) { update(bytes.data(), bytes.size()); }
  // The digest of everything fed so far; the hasher starts over afterwards.
  std::string finish();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

std::string sha256_of(std::string_view bytes);

// "sha256:<64 lowercase hex>" and nothing else: the only algorithm k3c stores. Anything else
// is kInvalid naming `what` (e.g. "layer 2 digest").
Status check_digest(std::string_view digest, std::string_view what);

// The hex part of a checked digest.
inline std::string_view digest_hex(std::string_view digest) { return digest.substr(7); }

}  // namespace k3c::runtime
