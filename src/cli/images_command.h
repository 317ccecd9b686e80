// `k3c images import|ls|rm|pull|unpack`: the node's image store from the command line, like
// `k3s ctr images` / `crictl images`. Works on the store under --data-dir whether or not a
// server runs (the store locks itself across processes).
#pragma once

#include <string>
#include <vector>

#include "cli/environment.h"
#include "runtime/image_record.h"

namespace k3c::cli {

struct CommandOutcome {
  int exit_code = 0;
  std::string out;
  std::string err;
};

// `args` are the arguments after `k3c images`.
CommandOutcome run_images(const std::vector<std::string>& args, const Environment& env);

// The `k3c images ls` table: REPOSITORY TAG IMAGE ID SIZE, one row per reference (an image
// without any shows <none> <none>), sorted by repository and tag.
std::string image_table(const std::vector<runtime::ImageRecord>& images);

// Sizes as crictl and docker print them: decimal units, three significant digits ("2.22MB").
std::string human_size(uint64_t bytes);

}  // namespace k3c::cli
