// Parsing of cgroup control files: single numbers ("1024\n", "max"), flat keyed files
// ("usage_usec 123\nuser_usec 100\n": cpu.stat, memory.stat, memory.events,
// memory.oom_control) and pid lists (cgroup.procs); the check of a cgroup path. Pure
// functions.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace k3c::runtime::cgroup_files {

// A non-negative decimal, surrounding whitespace allowed; nullopt for "max" or junk.
std::optional<uint64_t> parse_u64(std::string_view text);
// The number after `key` on the line "key value"; nullopt when there is no such line.
std::optional<uint64_t> keyed_value(std::string_view content, std::string_view key);
// The non-empty parts of `s` between `sep`s.
std::vector<std::string> split(std::string_view s, char sep);
// One pid per line; lines that are not pids are skipped.
std::vector<pid_t> parse_pids(std::string_view content);

// A cgroup path relative to the roots: non-empty segments of printable characters, no "." or
// "..": it must not leave the hierarchy. kInvalid says what is wrong.
Status check_path(const std::string& path);

}  // namespace k3c::runtime::cgroup_files
