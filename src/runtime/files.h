// Small filesystem helpers the image store is built on: durable atomic writes (temp file,
// fsync, rename, fsync of the directory) and unsynced ones, bounded reads, mkdir -p and
// rm -rf; and du.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace k3c::runtime {

// mkdir -p; the directories it creates get `mode` (less the umask).
Status make_dirs(const std::string& path, unsigned mode = 0755);

// Replaces `path` with `bytes` so that a crash leaves the old or the new file, never a mix.
Status write_file_atomic(const std::string& path, std::string_view bytes);

// Temp file + rename without any fsync, for files that describe what does not survive a
// power loss either (a process, a sandbox's pinned namespaces): a crash of k3c leaves the
// old or the new file, which is what matters there. (An fsync cost tens of milliseconds per
// container start on a busy disk.)
Status write_file_unsynced(const std::string& path, std::string_view bytes);

// The whole file; kNotFound when it does not exist, kInvalid when it is over `max_bytes`.
Result<std::string> read_file(const std::string& path, size_t max_bytes);

// fsync of a directory, so that renames and unlinks in it are durable.
Status sync_dir(const std::string& path);

// rm -rf that never follows symlinks; a missing path is success.
Status remove_tree(const std::string& path);

// The names in a directory (no "." or ".."), sorted; an empty list when it does not exist.
Result<std::vector<std::string>> list_dir(const std::string& path);

// What a directory tree takes on disk, as `du` counts it (allocated blocks of every file,
// directory and link, each inode once; symlinks not followed; other filesystems mounted
// below not entered). A missing path is zero.
struct DiskUsage {
  uint64_t bytes = 0;
  uint64_t inodes = 0;
};
Result<DiskUsage> disk_usage(const std::string& path);

// "<strerror(errno)>" prefixed with what failed: "open /x: No such file or directory".
Status errno_status(std::string_view what, int err);

}  // namespace k3c::runtime
