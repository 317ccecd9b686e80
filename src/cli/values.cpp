// Parsers of typed setting values (see values.h).
#include "cli/values.h"

#include <arpa/inet.h>

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <string>

#include "core/names.h"

namespace k3c::cli {
namespace {

Status invalid(std::string reason) { return error(Code::kInvalid, std::move(reason)); }

// A decimal number in [min, max], nothing else.
Result<uint64_t> parse_decimal(std::string_view text, uint64_t min, uint64_t max,
                               std::string_view what) {
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    return invalid(std::string(what) + " must be a decimal number");
  }
  if (value < min || value > max) {
    return invalid(std::string(what) + " must be between " + std::to_string(min) + " and " +
                   std::to_string(max));
  }
  return value;
}

}  // namespace

Result<IpAddress> IpAddress::parse(std::string_view text) {
  const std::string copy(text);  // inet_pton needs a terminated string
  IpAddress address;
  if (inet_pton(AF_INET, copy.c_str(), address.bytes.data()) == 1) {
    address.family = IpFamily::kV4;
    return address;
  }
  if (inet_pton(AF_INET6, copy.c_str(), address.bytes.data()) == 1) {
    address.family = IpFamily::kV6;
    return address;
  }
  return invalid("not an IPv4 or IPv6 address");
}

std::string IpAddress::to_string() const {
  char buf[INET6_ADDRSTRLEN] = {};
  inet_ntop(family == IpFamily::kV4 ? AF_INET : AF_INET6, bytes.data(), buf, sizeof buf);
  return buf;
}

Result<Cidr> Cidr::parse(std::string_view text) {
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos) return invalid("not a CIDR: expected ADDRESS/PREFIX");
  Cidr cidr;
  ASSIGN_OR_RETURN(cidr.network, IpAddress::parse(text.substr(0, slash)));
  const int bits = cidr.network.bits();
  ASSIGN_OR_RETURN(uint64_t prefix,
                   parse_decimal(text.substr(slash + 1), 0, static_cast<uint64_t>(bits),
                                 cidr.network.family == IpFamily::kV4 ? "IPv4 prefix length"
                                                                      : "IPv6 prefix length"));
  cidr.prefix = static_cast<int>(prefix);
  // Kubernetes takes the range from the network address; a set host bit is most likely a
  // typo, so say which network was probably meant rather than guess.
  Cidr masked = cidr;
  for (int bit = cidr.prefix; bit < bits; ++bit) {
    masked.network.bytes[bit / 8] &= static_cast<uint8_t>(~(0x80u >> (bit % 8)));
  }
  if (!(masked == cidr)) {
    return invalid("host bits are set; the network address is " + masked.to_string());
  }
  return cidr;
}

std::string Cidr::to_string() const { return network.to_string() + "/" + std::to_string(prefix); }

bool Cidr::contains(const IpAddress& address) const {
  if (address.family != network.family) return false;
  for (int bit = 0; bit < prefix; ++bit) {
    const uint8_t mask = static_cast<uint8_t>(0x80u >> (bit % 8));
    if ((address.bytes[bit / 8] & mask) != (network.bytes[bit / 8] & mask)) return false;
  }
  return true;
}

Result<IpAddress> Cidr::nth(uint64_t n) const {
  const int host_bits = network.bits() - prefix;
  if (host_bits < 64 && n >= (uint64_t{1} << host_bits)) {
    return invalid(to_string() + " has fewer than " + std::to_string(n + 1) + " addresses");
  }
  IpAddress address = network;
  // Add n to the address, byte by byte from the end, carrying.
  uint64_t carry = n;
  for (size_t i = address.size(); i > 0 && carry != 0; --i) {
    const uint64_t sum = address.bytes[i - 1] + (carry & 0xff);
    address.bytes[i - 1] = static_cast<uint8_t>(sum & 0xff);
    carry = (carry >> 8) + (sum >> 8);
  }
  return address;
}

Result<uint16_t> parse_port(std::string_view text) {
  ASSIGN_OR_RETURN(uint64_t port, parse_decimal(text, 1, 65535, "port"));
  return static_cast<uint16_t>(port);
}

Result<PortRange> PortRange::parse(std::string_view text) {
  const size_t dash = text.find('-');
  if (dash == std::string_view::npos) return invalid("expected FIRST-LAST, e.g. 30000-32767");
  PortRange range;
  ASSIGN_OR_RETURN(range.first, parse_port(text.substr(0, dash)));
  ASSIGN_OR_RETURN(range.last, parse_port(text.substr(dash + 1)));
  if (range.first > range.last) return invalid("the first port is above the last");
  return range;
}

std::string PortRange::to_string() const {
  return std::to_string(first) + "-" + std::to_string(last);
}

Result<uint32_t> parse_file_mode(std::string_view text) {
  uint32_t mode = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), mode, 8);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    return invalid("not an octal file mode such as 0600 or 644");
  }
  if (mode > 07777) return invalid("a file mode is at most 07777");
  return mode;
}

Result<std::chrono::milliseconds> parse_duration(std::string_view text) {
  const Status bad = invalid("expected a duration such as 30s, 5m or 1h30m");
  if (text == "0") return std::chrono::milliseconds(0);
  if (text.empty() || text.front() == '-') {
    return text.empty() ? bad : invalid("must not be negative");
  }
  if (text.front() == '+') text.remove_prefix(1);
  constexpr double kYearMs = 365.0 * 24 * 3600 * 1000;
  double total_ms = 0;
  while (!text.empty()) {
    size_t i = 0;
    bool digits = false, dot = false;
    while (i < text.size() &&
           (std::isdigit(static_cast<unsigned char>(text[i])) || (text[i] == '.' && !dot))) {
      if (text[i] == '.')
        dot = true;
      else
        digits = true;
      ++i;
    }
    if (!digits) return bad;
    const double number = std::strtod(std::string(text.substr(0, i)).c_str(), nullptr);
    text.remove_prefix(i);
    size_t unit_end = 0;
    while (unit_end < text.size() && !std::isdigit(static_cast<unsigned char>(text[unit_end])) &&
           text[unit_end] != '.') {
      ++unit_end;
    }
    const std::string_view unit = text.substr(0, unit_end);
    text.remove_prefix(unit_end);
    double scale = 0;
    if (unit == "ns")
      scale = 1e-6;
    else if (unit == "us" || unit == "\u00b5s" || unit == "\u03bcs")
      scale = 1e-3;
    else if (unit == "ms")
      scale = 1;
    else if (unit == "s")
      scale = 1e3;
    else if (unit == "m")
      scale = 60e3;
    else if (unit == "h")
      scale = 3600e3;
    else
      return unit.empty() ? invalid("a unit is missing (ns, us, ms, s, m, h)") : bad;
    total_ms += number * scale;
    if (total_ms > kYearMs) return invalid("longer than a year");
  }
  return std::chrono::milliseconds(static_cast<int64_t>(total_ms));
}

Result<bool> parse_bool(std::string_view text) {
  for (std::string_view yes : {"true", "True", "TRUE", "yes", "Yes", "on", "On", "1"}) {
    if (text == yes) return true;
  }
  for (std::string_view no : {"false", "False", "FALSE", "no", "No", "off", "Off", "0"}) {
    if (text == no) return false;
  }
  return invalid("expected true or false");
}

Result<NodeLabel> NodeLabel::parse(std::string_view text) {
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos) return invalid("expected KEY=VALUE");
  NodeLabel label{std::string(text.substr(0, eq)), std::string(text.substr(eq + 1))};
  if (Status s = names::validate_qualified_name(label.key); !s.is_ok()) {
    return invalid("label key " + s.message());
  }
  if (Status s = names::validate_label_value(label.value); !s.is_ok()) {
    return invalid("label value " + s.message());
  }
  return label;
}

Result<NodeTaint> NodeTaint::parse(std::string_view text) {
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return invalid("expected KEY=VALUE:EFFECT or KEY:EFFECT");
  NodeTaint taint;
  const std::string_view effect = text.substr(colon + 1);
  if (effect == "NoSchedule") {
    taint.effect = TaintEffect::kNoSchedule;
  } else if (effect == "PreferNoSchedule") {
    taint.effect = TaintEffect::kPreferNoSchedule;
  } else if (effect == "NoExecute") {
    taint.effect = TaintEffect::kNoExecute;
  } else {
    return invalid("taint effect \"" + std::string(effect) +
                   "\" is not one of NoSchedule, PreferNoSchedule, NoExecute");
  }
  const std::string_view key_value = text.substr(0, colon);
  const size_t eq = key_value.find('=');
  taint.key = std::string(key_value.substr(0, eq));
  if (eq != std::string_view::npos) taint.value = std::string(key_value.substr(eq + 1));
  if (Status s = names::validate_qualified_name(taint.key); !s.is_ok()) {
    return invalid("taint key " + s.message());
  }
  if (Status s = names::validate_label_value(taint.value); !s.is_ok()) {
    return invalid("taint value " + s.message());
  }
  return taint;
}

}  // namespace k3c::cli
