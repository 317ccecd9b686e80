// Parsing of cgroup control files (see control_files.h).
#include "runtime/cgroups/control_files.h"

#include <charconv>
#include <string>

#include "core/text.h"

namespace k3c::runtime::cgroup_files {
namespace {

// Calls fn(line) for each line until it returns true.
template <typename Fn>
void for_each_line(std::string_view content, Fn fn) {
  while (!content.empty()) {
    const size_t nl = content.find('\n');
    if (fn(content.substr(0, nl))) return;
    if (nl == std::string_view::npos) return;
    content.remove_prefix(nl + 1);
  }
}

}  // namespace

std::optional<uint64_t> parse_u64(std::string_view text) {
  text = trim_space(text);
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<uint64_t> keyed_value(std::string_view content, std::string_view key) {
  std::optional<uint64_t> found;
  for_each_line(content, [&](std::string_view line) {
    const size_t space = line.find(' ');
    if (space == std::string_view::npos || line.substr(0, space) != key) return false;
    found = parse_u64(line.substr(space + 1));
    return true;
  });
  return found;
}

// A cgroup path relative to the roots: non-empty segments of printable characters, no
// "." or "..": it must not leave the hierarchy.
Status check_path(const std::string& path) {
  auto bad = [&](const char* why) {
    return error(Code::kInvalid, "invalid cgroup path \"" + path + "\": " + why);
  };
  if (path.empty()) return bad("must not be empty");
  if (path.front() == '/') return bad("must be relative to the cgroup root");
  if (path.size() > 1024) return bad("longer than 1024 characters");
  for (const std::string& segment : split(path, '/')) {
    if (segment == "." || segment == "..") return bad("must not contain \".\" or \"..\"");
  }
  if (path.find("//") != std::string::npos || path.back() == '/') return bad("empty segment");
  for (unsigned char c : path) {
    if (c < 0x21 || c == 0x7f) return bad("must not contain spaces or control characters");
  }
  return Status::ok();
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> parts;
  while (true) {
    const size_t at = s.find(sep);
    std::string part(s.substr(0, at));
    if (!part.empty()) parts.push_back(std::move(part));
    if (at == std::string_view::npos) return parts;
    s.remove_prefix(at + 1);
  }
}

std::vector<pid_t> parse_pids(std::string_view content) {
  std::vector<pid_t> pids;
  for_each_line(content, [&](std::string_view line) {
    auto pid = parse_u64(line);
    if (pid && *pid > 0 && *pid < (uint64_t{1} << 31)) pids.push_back(static_cast<pid_t>(*pid));
    return false;
  });
  return pids;
}

}  // namespace k3c::runtime::cgroup_files
