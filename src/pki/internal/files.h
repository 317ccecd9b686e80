// The file operations of the PKI: whole-file reads, atomic replacement (temp file, fsync,
// rename, fsync of the directory) so a crash leaves either the old or the new file, whole
// directories built aside and moved into place with one rename, and directory creation with
// a mode. Errors name the path.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"

namespace k3c::pki::internal {

// The file's bytes, or nullopt when it does not exist.
Result<std::optional<std::string>> read_file_if_exists(const std::string& path);

Result<bool> file_exists(const std::string& path);

enum class Durability {
  kSynced,    // durable when the call returns
  kUnsynced,  // for a staging directory, made durable as a whole by commit_staging_dir
};

// Replaces `path` with `data`. The file has `mode` from its first byte on (the temp file is
// created with it), so a key is never readable by others, even briefly.
Status write_file_atomic(const std::string& path, std::string_view data, unsigned mode,
                         Durability durability = Durability::kSynced);

// A new empty directory "<final_path>.new-XXXXXX" (mode 0700) beside `final_path`, to build
// its contents in. Staging directories an earlier crash left behind are removed first.
Result<std::string> make_staging_dir(const std::string& final_path);

// Makes every file in `staging` durable, then renames `staging` to `final_path` (which must
// not exist): a crash leaves either no `final_path` or all of it.
Status commit_staging_dir(const std::string& staging, const std::string& final_path);

// Creates `path` and any missing parents with `mode`; existing directories keep theirs.
Status make_dirs(const std::string& path, unsigned mode);

Status set_mode(const std::string& path, unsigned mode);

// The parent directory of `path` ("." when it has none).
std::string parent_dir(const std::string& path);

}  // namespace k3c::pki::internal
