// Typed values of settings: IP addresses, CIDRs, ports, port ranges, file modes, booleans,
// node labels and taints. Each parse() returns kInvalid with the reason only; the caller adds
// which setting and value it was.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"

namespace k3c::cli {

enum class IpFamily : uint8_t { kV4, kV6 };

struct IpAddress {
  IpFamily family = IpFamily::kV4;
  std::array<uint8_t, 16> bytes{};  // network order; only the first 4 are used for IPv4

  static Result<IpAddress> parse(std::string_view text);
  size_t size() const { return family == IpFamily::kV4 ? 4 : 16; }
  int bits() const { return static_cast<int>(size()) * 8; }
  std::string to_string() const;
  bool operator==(const IpAddress&) const = default;
};

// A network: an address whose host bits are zero and a prefix length.
struct Cidr {
  IpAddress network;
  int prefix = 0;

  // Rejects host bits that are set ("10.42.0.1/16"), naming the network address meant.
  static Result<Cidr> parse(std::string_view text);
  std::string to_string() const;
  bool contains(const IpAddress& address) const;
  // network + n; kInvalid when the range has fewer than n + 1 addresses.
  Result<IpAddress> nth(uint64_t n) const;
  bool operator==(const Cidr&) const = default;
};

// 1-65535.
Result<uint16_t> parse_port(std::string_view text);

struct PortRange {
  uint16_t first = 0;
  uint16_t last = 0;

  // "FIRST-LAST" with 1 <= FIRST <= LAST <= 65535.
  static Result<PortRange> parse(std::string_view text);
  std::string to_string() const;
  bool operator==(const PortRange&) const = default;
};

// An octal file mode such as "0600" or "644"; at most 07777.
Result<uint32_t> parse_file_mode(std::string_view text);

// A Go duration as upstream's flags take it: "40s", "1m30s", "1.5h", "500ms", "0"; at least
// 0 and at most a year, kept to the millisecond (finer parts are dropped).
Result<std::chrono::milliseconds> parse_duration(std::string_view text);

// true/false, also yes/no and on/off as YAML 1.1 (and k3s's config files) allow.
Result<bool> parse_bool(std::string_view text);

struct NodeLabel {
  std::string key;
  std::string value;

  // "KEY=VALUE" with a Kubernetes label key and value.
  static Result<NodeLabel> parse(std::string_view text);
  bool operator==(const NodeLabel&) const = default;
};

enum class TaintEffect : uint8_t { kNoSchedule, kPreferNoSchedule, kNoExecute };

struct NodeTaint {
  std::string key;
  std::string value;
  TaintEffect effect = TaintEffect::kNoSchedule;

  // "KEY=VALUE:EFFECT" or "KEY:EFFECT", EFFECT one of NoSchedule, PreferNoSchedule,
  // NoExecute.
  static Result<NodeTaint> parse(std::string_view text);
  bool operator==(const NodeTaint&) const = default;
};

}  // namespace k3c::cli
