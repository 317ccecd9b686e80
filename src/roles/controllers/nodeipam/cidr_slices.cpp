#include "roles/controllers/nodeipam/cidr_slices.h"

#include <charconv>

namespace k3c::controllers {
namespace {

uint32_t mask_of(int prefix) { return prefix == 0 ? 0 : ~uint32_t{0} << (32 - prefix); }

// One decimal number in [0, max] at the front of `text`, consumed.
std::optional<uint32_t> number(std::string_view& text, uint32_t max) {
  uint32_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end == text.data() || v > max) return std::nullopt;
  if (end - text.data() > 1 && text.front() == '0') return std::nullopt;  // no leading zeros
  text.remove_prefix(static_cast<size_t>(end - text.data()));
  return v;
}

}  // namespace

std::optional<Ipv4Cidr> parse_ipv4_cidr(std::string_view text) {
  uint32_t address = 0;
  for (int i = 0; i < 4; ++i) {
    auto octet = number(text, 255);
    if (!octet) return std::nullopt;
    address = address << 8 | *octet;
    const char separator = i < 3 ? '.' : '/';
    if (text.empty() || text.front() != separator) return std::nullopt;
    text.remove_prefix(1);
  }
  auto prefix = number(text, 32);
  if (!prefix || !text.empty()) return std::nullopt;
  Ipv4Cidr cidr{address, static_cast<int>(*prefix)};
  if ((address & ~mask_of(cidr.prefix)) != 0) return std::nullopt;
  return cidr;
}

std::string to_string(const Ipv4Cidr& cidr) {
  return std::to_string(cidr.network >> 24) + "." + std::to_string(cidr.network >> 16 & 0xff) +
         "." + std::to_string(cidr.network >> 8 & 0xff) + "." +
         std::to_string(cidr.network & 0xff) + "/" + std::to_string(cidr.prefix);
}

std::optional<Ipv4Cidr> first_free_slice(const Ipv4Cidr& cluster, int mask,
                                         const std::set<uint32_t>& used) {
  if (mask < cluster.prefix || mask > 32) return std::nullopt;
  const uint64_t count = uint64_t{1} << (mask - cluster.prefix);
  const uint64_t step = uint64_t{1} << (32 - mask);
  for (uint64_t i = 0; i < count; ++i) {
    auto network = static_cast<uint32_t>(cluster.network + i * step);
    if (!used.count(network)) return Ipv4Cidr{network, mask};
  }
  return std::nullopt;
}

bool is_slice_of(const Ipv4Cidr& slice, const Ipv4Cidr& cluster, int mask) {
  return slice.prefix == mask && mask >= cluster.prefix &&
         (slice.network & mask_of(cluster.prefix)) == cluster.network;
}

}  // namespace k3c::controllers
