// Reading /proc's text files (see proc_text.h).
#include "core/proc_text.h"

#include <charconv>

namespace k3c {

std::vector<uint64_t> proc_numbers_after(std::string_view text, std::string_view prefix) {
  std::vector<uint64_t> values;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    if (line.substr(0, prefix.size()) != prefix) continue;
    line.remove_prefix(prefix.size());
    while (!line.empty()) {
      while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
      uint64_t v = 0;
      auto [next, ec] = std::from_chars(line.data(), line.data() + line.size(), v);
      if (ec != std::errc()) break;
      values.push_back(v);
      line.remove_prefix(static_cast<size_t>(next - line.data()));
    }
    break;
  }
  return values;
}

Result<int64_t> proc_stat_boot_time(std::string_view proc_stat) {
  const std::vector<uint64_t> v = proc_numbers_after(proc_stat, "btime ");
  if (v.empty()) return error(Code::kInternal, "/proc/stat has no btime line");
  return static_cast<int64_t>(v[0]);
}

}  // namespace k3c
