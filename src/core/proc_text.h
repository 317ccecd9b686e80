// Pieces of /proc's text files that more than one role reads (the kubelet's node stats, the
// API server's process metrics).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace k3c {

// The whitespace-separated numbers after `prefix` at the start of the first line that has
// it ("cpu " in /proc/stat, "MemTotal:" in /proc/meminfo); empty when no line has it.
std::vector<uint64_t> proc_numbers_after(std::string_view text, std::string_view prefix);

// /proc/stat's btime: the boot time in seconds since the epoch.
Result<int64_t> proc_stat_boot_time(std::string_view proc_stat);

}  // namespace k3c
