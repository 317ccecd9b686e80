// Eviction thresholds and their flags (see eviction_thresholds.h).
#include "roles/kubelet/eviction/eviction_thresholds.h"

#include <charconv>
#include <cmath>

#include "core/cron_schedule.h"

namespace k3c::kubelet {
namespace {

struct SignalInfo {
  Signal signal;
  std::string_view name, resource, condition;
};
constexpr SignalInfo kSignals[] = {
    {Signal::kMemoryAvailable, "memory.available", "memory", "MemoryPressure"},
    {Signal::kNodeFsAvailable, "nodefs.available", "ephemeral-storage", "DiskPressure"},
    {Signal::kNodeFsInodesFree, "nodefs.inodesFree", "ephemeral-storage", "DiskPressure"},
    {Signal::kImageFsAvailable, "imagefs.available", "ephemeral-storage", "DiskPressure"},
    {Signal::kImageFsInodesFree, "imagefs.inodesFree", "ephemeral-storage", "DiskPressure"},
    {Signal::kPidAvailable, "pid.available", "pids", "PIDPressure"},
};

const SignalInfo& info(Signal signal) {
  for (const SignalInfo& s : kSignals)
    if (s.signal == signal) return s;
  return kSignals[0];  // cannot happen: every enumerator is listed
}

// "a,b,c" split on commas, surrounding blanks trimmed, empty items skipped.
std::vector<std::string_view> items(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    const size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

Result<Signal> known_signal(std::string_view name) {
  auto signal = signal_from_name(name);
  if (!signal) return error(Code::kInvalid, "unsupported eviction signal " + std::string(name));
  return *signal;
}

// One value: "10%" or a positive quantity; nullopt for "0%" and "100%" (ignored upstream).
Result<std::optional<ThresholdValue>> parse_value(Signal signal, std::string_view text,
                                                  const char* what) {
  const std::string name(signal_name(signal));
  if (text.ends_with('%')) {
    if (text == "0%" || text == "100%") return std::optional<ThresholdValue>();
    std::string number(text.substr(0, text.size() - 1));
    double percent = 0;
    auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), percent);
    if (ec != std::errc() || end != number.data() + number.size() || !std::isfinite(percent))
      return error(Code::kInvalid, "invalid " + std::string(what) + " percentage " + name + ": " +
                                       std::string(text));
    if (percent < 0)
      return error(Code::kInvalid, "eviction percentage " + std::string(what) + " " + name +
                                       " must be >= 0%: " + std::string(text));
    if (percent > 100)
      return error(Code::kInvalid, "eviction percentage " + std::string(what) + " " + name +
                                       " must be <= 100%: " + std::string(text));
    return std::optional<ThresholdValue>(ThresholdValue{std::nullopt, percent / 100});
  }
  auto quantity = api::Quantity::parse(text);
  if (!quantity)
    return error(Code::kInvalid,
                 "invalid " + std::string(what) + " quantity " + name + ": " + std::string(text));
  if (quantity->negative() || quantity->is_zero())
    return error(Code::kInvalid, "eviction " + std::string(what) + " " + name +
                                     " must be positive: " + quantity->to_string());
  return std::optional<ThresholdValue>(ThresholdValue{*quantity, 0});
}

// "signal<sep>value" items, each value through `parse`.
template <typename T, typename Parse>
Result<std::map<Signal, T>> parse_list(std::string_view text, char separator, Parse parse) {
  std::map<Signal, T> out;
  for (std::string_view item : items(text)) {
    const size_t at = item.find(separator);
    if (at == std::string_view::npos)
      return error(Code::kInvalid, "expected SIGNAL" + std::string(1, separator) + "VALUE, got " +
                                       std::string(item));
    ASSIGN_OR_RETURN(Signal signal, known_signal(item.substr(0, at)));
    ASSIGN_OR_RETURN(std::optional<T> value, parse(signal, item.substr(at + 1)));
    if (value) out[signal] = *value;
  }
  return out;
}

}  // namespace

std::string_view signal_name(Signal signal) { return info(signal).name; }
std::string_view signal_resource(Signal signal) { return info(signal).resource; }
std::string_view signal_condition(Signal signal) { return info(signal).condition; }

std::optional<Signal> signal_from_name(std::string_view name) {
  for (const SignalInfo& s : kSignals)
    if (s.name == name) return s.signal;
  return std::nullopt;
}

api::Quantity threshold_quantity(const ThresholdValue& value, int64_t capacity) {
  if (value.quantity) return *value.quantity;
  return api::Quantity::from_value(
      static_cast<int64_t>(static_cast<double>(capacity) * value.percentage),
      api::Quantity::Format::kBinarySI);
}

ThresholdMap default_hard_thresholds() {
  return {{Signal::kMemoryAvailable, {api::Quantity::parse("100Mi"), 0}},
          {Signal::kNodeFsAvailable, {std::nullopt, 0.10}},
          {Signal::kNodeFsInodesFree, {std::nullopt, 0.05}},
          {Signal::kImageFsAvailable, {std::nullopt, 0.15}}};
}

Result<ThresholdMap> parse_threshold_list(std::string_view text) {
  return parse_list<ThresholdValue>(
      text, '<', [](Signal s, std::string_view v) { return parse_value(s, v, "threshold"); });
}

Result<ThresholdMap> parse_minimum_reclaim_list(std::string_view text) {
  return parse_list<ThresholdValue>(
      text, '=', [](Signal s, std::string_view v) { return parse_value(s, v, "minimum reclaim"); });
}

Result<std::map<Signal, std::chrono::milliseconds>> parse_grace_period_list(std::string_view text) {
  using Ms = std::chrono::milliseconds;
  return parse_list<Ms>(text, '=', [](Signal s, std::string_view v) -> Result<std::optional<Ms>> {
    auto d = parse_go_duration(v);
    if (!d.is_ok() || d->count() <= 0)
      return error(Code::kInvalid, "invalid eviction grace period specified for " +
                                       std::string(signal_name(s)) + ": " + std::string(v) +
                                       ", must be a positive duration");
    return std::optional<Ms>(std::chrono::duration_cast<Ms>(*d));
  });
}

Result<std::vector<Threshold>> eviction_thresholds(const EvictionSettings& settings) {
  std::vector<Threshold> out;
  auto min_reclaim = [&](Signal s) -> std::optional<ThresholdValue> {
    auto it = settings.minimum_reclaim.find(s);
    if (it == settings.minimum_reclaim.end()) return std::nullopt;
    return it->second;
  };
  for (const auto& [signal, value] : settings.hard ? *settings.hard : default_hard_thresholds())
    out.push_back({signal, value, std::chrono::milliseconds(0), min_reclaim(signal)});
  for (const auto& [signal, value] : settings.soft) {
    auto grace = settings.soft_grace_period.find(signal);
    if (grace == settings.soft_grace_period.end())
      return error(Code::kInvalid,
                   "grace period must be specified for the soft eviction threshold " +
                       std::string(signal_name(signal)));
    out.push_back({signal, value, grace->second, min_reclaim(signal)});
  }
  for (const auto& [signal, grace] : settings.soft_grace_period) {
    if (!settings.soft.count(signal))
      return error(Code::kInvalid, "eviction-soft-grace-period names " +
                                       std::string(signal_name(signal)) +
                                       ", which has no eviction-soft threshold");
  }
  return out;
}

}  // namespace k3c::kubelet
