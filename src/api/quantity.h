// resource.Quantity as upstream parses, compares and prints it: "500m", "1.5Gi", "2e3",
// "128974848". The scheduler, LimitRanger, ResourceQuota and the printers share it.
//
// A quantity is held exactly in nano-units (1e-9) in 128 bits: every value upstream accepts
// in practice (up to Ei of bytes, down to n of a core) fits without rounding. Upstream
// rounds values finer than 1n up to 1n; so does parse().
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace k3c::api {

class Quantity {
 public:
  // How upstream prints a quantity back: with a binary suffix (Ki, Mi...), a decimal one
  // (m, k, M...) or a decimal exponent (e3). Parsing keeps the format of the input.
  enum class Format : uint8_t { kDecimalSI, kBinarySI, kDecimalExponent };

  Quantity() = default;
  static Quantity from_milli(int64_t milli, Format format = Format::kDecimalSI);
  static Quantity from_value(int64_t value, Format format = Format::kDecimalSI);

  // nullopt for anything upstream rejects ("quantities must match the regular expression
  // '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'").
  static std::optional<Quantity> parse(std::string_view text);

  // Upstream's Value() and MilliValue(): rounded up to a whole unit / milli-unit, saturated
  // at the int64 range.
  int64_t value() const;
  int64_t milli_value() const;
  bool is_zero() const { return nanos_ == 0; }
  bool negative() const { return nanos_ < 0; }
  Format format() const { return format_; }

  // The canonical text upstream's String() gives: "1Gi" for 1024Mi, "1" for 1000m, "1500m"
  // for 1.5, "0" for zero.
  std::string to_string() const;

  Quantity operator+(const Quantity& other) const;
  Quantity operator-(const Quantity& other) const;
  Quantity& operator+=(const Quantity& other);
  Quantity& operator-=(const Quantity& other);
  Quantity times(int64_t factor) const;
  auto operator<=>(const Quantity& other) const { return nanos_ <=> other.nanos_; }
  bool operator==(const Quantity& other) const { return nanos_ == other.nanos_; }

 private:
  Quantity(__int128 nanos, Format format) : nanos_(nanos), format_(format) {}

  __int128 nanos_ = 0;
  Format format_ = Format::kDecimalSI;
};

}  // namespace k3c::api
