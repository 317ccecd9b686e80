// Statistics and printing shared by the benchmarks (see bench_report.h).
#include "bench_report.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

namespace k3c::bench {

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

Latency summarize(std::vector<int64_t> samples_ns) {
  Latency out;
  out.count = samples_ns.size();
  if (samples_ns.empty()) return out;
  std::sort(samples_ns.begin(), samples_ns.end());
  // Nearest rank: the smallest sample with at least q of all samples at or below it.
  auto at = [&](double q) {
    size_t rank = static_cast<size_t>(q * static_cast<double>(samples_ns.size()) + 0.999999);
    return static_cast<double>(samples_ns[std::clamp<size_t>(rank, 1, samples_ns.size()) - 1]) /
           1e6;
  };
  out.p50_ms = at(0.50);
  out.p99_ms = at(0.99);
  out.max_ms = static_cast<double>(samples_ns.back()) / 1e6;
  return out;
}

Latency combine(const std::vector<Latency>& reps) {
  Latency out;
  std::vector<double> p50, p99;
  for (const Latency& l : reps) {
    p50.push_back(l.p50_ms);
    p99.push_back(l.p99_ms);
    out.max_ms = std::max(out.max_ms, l.max_ms);
    out.count += l.count;
  }
  out.p50_ms = median(p50);
  out.p99_ms = median(p99);
  return out;
}

std::string to_string(const Latency& l) {
  return format("p50 %.2f ms  p99 %.2f ms  max %.2f ms", l.p50_ms, l.p99_ms, l.max_ms);
}

std::string to_string(const Rate& r, const char* unit) {
  std::string out = format("%.0f %s (reps", r.median, unit);
  for (double v : r.reps) out += format(" %.0f", v);
  return out + ")";
}

std::string format(const char* fmt, ...) {
  char buf[512];
  va_list args;
  va_start(args, fmt);
  vsnprintf(buf, sizeof buf, fmt, args);
  va_end(args);
  return buf;
}

void print_heading(const std::string& title) {
  std::printf("\n== %s\n", title.c_str());
  std::fflush(stdout);
}

void print_figure(const std::string& name, const std::string& value) {
  std::string dots(name.size() < 46 ? 46 - name.size() : 1, '.');
  std::printf("  %s %s %s\n", name.c_str(), dots.c_str(), value.c_str());
  std::fflush(stdout);
}

void print_summary(const std::vector<SummaryRow>& rows) {
  print_heading("Summary");
  const char* line = "  %-38s %-22s %-18s %-26s %s\n";
  std::printf(line, "figure", "value", "target", "ratio", "result");
  for (const SummaryRow& r : rows) {
    const char* result = !r.met ? "-" : *r.met ? "met" : "NOT MET";
    std::printf(line, r.figure.c_str(), r.value.c_str(), r.target.empty() ? "-" : r.target.c_str(),
                r.ratio.empty() ? "-" : r.ratio.c_str(), result);
  }
  std::fflush(stdout);
}

SummaryRow limit_row(const std::string& figure, double value, double limit, const char* unit,
                     bool inclusive) {
  return {figure, format("%.2f %s", value, unit),
          format("%s %g %s", inclusive ? "<=" : "<", limit, unit),
          format("%.2f of limit", value / limit), inclusive ? value <= limit : value < limit};
}

SummaryRow floor_row(const std::string& figure, double value, double floor, const char* unit) {
  return {figure, format("%.0f %s", value, unit), format(">= %g %s", floor, unit),
          format("%.2fx target", value / floor), value >= floor};
}

}  // namespace k3c::bench
