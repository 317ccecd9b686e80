// Statistics and printing shared by the benchmarks: medians over repetitions, latency
// percentiles, and the figure lines and summary table they print.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace k3c::bench {

using SteadyClock = std::chrono::steady_clock;

// steady_clock in nanoseconds: the timestamps the watch phase writes into values.
inline int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(SteadyClock::now().time_since_epoch())
      .count();
}

double median(std::vector<double> values);

// Percentiles of latency samples. Samples are signed nanoseconds: a watch event may be
// delivered before its writer sees the acknowledgement.
struct Latency {
  double p50_ms = 0;
  double p99_ms = 0;
  double max_ms = 0;
  size_t count = 0;
};
Latency summarize(std::vector<int64_t> samples_ns);
// The median of p50 and p99 over repetitions, and the worst max of any of them.
Latency combine(const std::vector<Latency>& reps);
std::string to_string(const Latency& l);  // "p50 1.23 ms  p99 4.56 ms  max 7.89 ms"

// A rate measured in several repetitions.
struct Rate {
  double median = 0;
  std::vector<double> reps;
};
std::string to_string(const Rate& r, const char* unit);  // "294 rows/s (reps 250 294 410)"

// printf into a std::string.
std::string format(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

void print_heading(const std::string& title);
// "  name ..................... value"
void print_figure(const std::string& name, const std::string& value);

// One row of the final summary. `met` is empty for figures without a target.
struct SummaryRow {
  std::string figure;
  std::string value;
  std::string target;
  std::string ratio;
  std::optional<bool> met;
};
void print_summary(const std::vector<SummaryRow>& rows);
// A row for a figure that must stay below `limit` ("< 5 ms"), or at most `limit` ("<= 20 MB")
// when `inclusive`; the ratio is value / limit.
SummaryRow limit_row(const std::string& figure, double value, double limit, const char* unit,
                     bool inclusive = false);
// A row for a rate that must reach `floor` (">= 2000 creates/s"); the ratio is value / floor.
SummaryRow floor_row(const std::string& figure, double value, double floor, const char* unit);

}  // namespace k3c::bench
