#include "roles/controllers/common/name_hash.h"

#include <cstdint>

namespace k3c::controllers {

std::string name_hash(std::string_view text) {
  uint32_t hash = 2166136261u;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 16777619u;
  }
  static constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::string out;
  for (char c : std::to_string(hash))
    out += kAlphabet[static_cast<unsigned char>(c) % kAlphabet.size()];
  return out;
}

}  // namespace k3c::controllers
