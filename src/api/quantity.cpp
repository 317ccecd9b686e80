#include "api/quantity.h"

#include <array>
#include <cctype>
#include <limits>

namespace k3c::api {
namespace {

using Int = __int128;
constexpr Int kNano = 1'000'000'000;
// Beyond this a quantity is refused rather than wrapped (1e36 nano-units: far past Ei).
constexpr Int kLimit = static_cast<Int>(1'000'000'000'000'000'000) * 1'000'000'000'000'000'000;

Int pow10(int exp) {
  Int r = 1;
  for (int i = 0; i < exp; ++i) r *= 10;
  return r;
}

// The multiplier of a suffix in nano-units as a (numerator, power of ten below) pair:
// value * base * 10^exp10 with exp10 possibly negative.
struct Scale {
  Int base = 1;
  int exp10 = 0;
  Quantity::Format format = Quantity::Format::kDecimalSI;
};

std::optional<Scale> scale_of(std::string_view suffix) {
  using F = Quantity::Format;
  if (suffix.empty()) return Scale{};
  static constexpr std::array<std::pair<std::string_view, int>, 6> kBinary = {
      {{"Ki", 1}, {"Mi", 2}, {"Gi", 3}, {"Ti", 4}, {"Pi", 5}, {"Ei", 6}}};
  for (auto [name, power] : kBinary) {
    if (suffix == name) {
      Int base = 1;
      for (int i = 0; i < power; ++i) base *= 1024;
      return Scale{base, 0, F::kBinarySI};
    }
  }
  static constexpr std::array<std::pair<char, int>, 9> kDecimal = {{{'n', -9},
                                                                    {'u', -6},
                                                                    {'m', -3},
                                                                    {'k', 3},
                                                                    {'M', 6},
                                                                    {'G', 9},
                                                                    {'T', 12},
                                                                    {'P', 15},
                                                                    {'E', 18}}};
  if (suffix.size() == 1) {
    for (auto [name, exp] : kDecimal) {
      if (suffix[0] == name) return Scale{1, exp, F::kDecimalSI};
    }
  }
  if (suffix[0] == 'e' || suffix[0] == 'E') {
    std::string_view digits = suffix.substr(1);
    bool minus = false;
    if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) {
      minus = digits[0] == '-';
      digits.remove_prefix(1);
    }
    if (digits.empty() || digits.size() > 3) return std::nullopt;
    int exp = 0;
    for (char c : digits) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
      exp = exp * 10 + (c - '0');
    }
    return Scale{1, minus ? -exp : exp, F::kDecimalExponent};
  }
  return std::nullopt;
}

int64_t saturate(Int v) {
  if (v > std::numeric_limits<int64_t>::max()) return std::numeric_limits<int64_t>::max();
  if (v < std::numeric_limits<int64_t>::min()) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

// Division rounding away from zero, as upstream's Value()/MilliValue() round up.
Int divide_up(Int v, Int by) {
  Int q = v / by;
  if (v % by != 0) q += v > 0 ? 1 : -1;
  return q;
}

std::string digits_of(Int v) {
  if (v == 0) return "0";
  std::string out;
  while (v > 0) {
    out.insert(out.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  }
  return out;
}

}  // namespace

Quantity Quantity::from_milli(int64_t milli, Format format) {
  return Quantity(static_cast<Int>(milli) * 1'000'000, format);
}

Quantity Quantity::from_value(int64_t value, Format format) {
  return Quantity(static_cast<Int>(value) * kNano, format);
}

std::optional<Quantity> Quantity::parse(std::string_view text) {
  if (text.empty()) return std::nullopt;
  bool minus = false;
  if (text[0] == '+' || text[0] == '-') {
    minus = text[0] == '-';
    text.remove_prefix(1);
  }
  size_t end = 0;
  while (end < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.')) {
    ++end;
  }
  std::string_view number = text.substr(0, end);
  auto scale = scale_of(text.substr(end));
  if (number.empty() || !scale) return std::nullopt;
  // The number as an integer mantissa and a count of decimals.
  Int mantissa = 0;
  int decimals = 0;
  bool dot = false, any_digit = false;
  for (char c : number) {
    if (c == '.') {
      if (dot) return std::nullopt;
      dot = true;
      continue;
    }
    any_digit = true;
    if (mantissa > kLimit) return std::nullopt;
    mantissa = mantissa * 10 + (c - '0');
    if (dot) ++decimals;
  }
  if (!any_digit) return std::nullopt;
  // nanos = mantissa * base * 10^(9 + exp10 - decimals), rounded up below one nano-unit.
  Int value = mantissa * scale->base;
  int exp = 9 + scale->exp10 - decimals;
  if (exp >= 0) {
    if (exp > 36) {
      if (value != 0) return std::nullopt;
    } else {
      Int factor = pow10(exp);
      if (value != 0 && value > kLimit / factor) return std::nullopt;
      value *= factor;
    }
  } else {
    Int divisor = -exp > 38 ? 0 : pow10(-exp);
    if (divisor == 0) {
      value = value != 0 ? 1 : 0;
    } else {
      value = divide_up(value, divisor);
    }
  }
  if (value > kLimit) return std::nullopt;
  return Quantity(minus ? -value : value, scale->format);
}

int64_t Quantity::value() const { return saturate(divide_up(nanos_, kNano)); }
int64_t Quantity::milli_value() const { return saturate(divide_up(nanos_, 1'000'000)); }

std::string Quantity::to_string() const {
  if (nanos_ == 0) return "0";
  Int magnitude = nanos_ < 0 ? -nanos_ : nanos_;
  std::string sign = nanos_ < 0 ? "-" : "";
  Format format = format_;
  // Upstream prints small or fractional binary quantities in decimal (1.5 stays "1500m").
  if (format == Format::kBinarySI && (magnitude % kNano != 0 || magnitude < 1024 * kNano)) {
    format = Format::kDecimalSI;
  }
  if (format == Format::kBinarySI) {
    Int units = magnitude / kNano;
    static constexpr std::array<std::string_view, 7> kSuffix = {"",   "Ki", "Mi", "Gi",
                                                                "Ti", "Pi", "Ei"};
    size_t power = 0;
    while (power + 1 < kSuffix.size() && units % 1024 == 0) {
      units /= 1024;
      ++power;
    }
    return sign + digits_of(units) + std::string(kSuffix[power]);
  }
  // Decimal: the largest multiple-of-three exponent that leaves a whole mantissa.
  int exp = -9;
  Int mantissa = magnitude;
  while (exp < 18 && mantissa % 1000 == 0) {
    mantissa /= 1000;
    exp += 3;
  }
  if (format == Format::kDecimalExponent) {
    return sign + digits_of(mantissa) + (exp == 0 ? "" : "e" + std::to_string(exp));
  }
  static constexpr std::array<std::string_view, 10> kSuffix = {"n", "u", "m", "",  "k",
                                                               "M", "G", "T", "P", "E"};
  return sign + digits_of(mantissa) + std::string(kSuffix[(exp + 9) / 3]);
}

Quantity Quantity::operator+(const Quantity& other) const {
  return Quantity(nanos_ + other.nanos_, nanos_ == 0 ? other.format_ : format_);
}
Quantity Quantity::operator-(const Quantity& other) const {
  return Quantity(nanos_ - other.nanos_, nanos_ == 0 ? other.format_ : format_);
}
Quantity& Quantity::operator+=(const Quantity& other) { return *this = *this + other; }
Quantity& Quantity::operator-=(const Quantity& other) { return *this = *this - other; }
Quantity Quantity::times(int64_t factor) const { return Quantity(nanos_ * factor, format_); }

}  // namespace k3c::api
