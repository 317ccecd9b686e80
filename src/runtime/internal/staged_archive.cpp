// Staging an image tarball (see staged_archive.h).
#include "runtime/internal/staged_archive.h"

#include <vector>

#include "runtime/internal/archive.h"

namespace k3c::runtime::internal {
namespace {

// The metadata files of both formats are small; keep their bytes (bounded) for parsing.
constexpr int64_t kSmallFileLimit = 4 << 20;

bool is_metadata_name(const std::string& path) {
  return path == "oci-layout" || path == "repositories" || path.ends_with(".json");
}

// "a/b/../c" style targets of links inside the archive, resolved against the link's folder.
Result<std::string> link_target(const std::string& link, std::string_view target, bool hard,
                                const std::string& archive_path) {
  std::string joined(target);
  if (!hard && !target.starts_with("/")) {
    const size_t slash = link.rfind('/');
    if (slash != std::string::npos) joined = link.substr(0, slash + 1) + joined;
  }
  // Lexically, as the archive is a namespace of names, not a directory tree.
  std::vector<std::string> parts;
  for (size_t start = 0; start <= joined.size();) {
    size_t end = joined.find('/', start);
    if (end == std::string::npos) end = joined.size();
    std::string part = joined.substr(start, end - start);
    start = end + 1;
    if (part.empty() || part == ".") continue;
    if (part != "..") {
      parts.push_back(std::move(part));
    } else if (parts.empty()) {
      return error(Code::kInvalid, archive_path + ": link " + link + " to \"" +
                                       std::string(target) + "\" climbs out of the archive");
    } else {
      parts.pop_back();
    }
  }
  std::string clean;
  for (const std::string& part : parts) clean += (clean.empty() ? "" : "/") + part;
  return clean;
}

}  // namespace

StagedFile* StagedArchive::find(const std::string& path) {
  std::string current = path;
  for (int hops = 0; hops < 16; ++hops) {
    if (auto it = files.find(current); it != files.end()) return &it->second;
    auto alias = aliases.find(current);
    if (alias == aliases.end()) return nullptr;
    current = alias->second;
  }
  return nullptr;  // a loop of links
}

const std::string* StagedArchive::small_file(const std::string& path) const {
  auto it = small.find(path);
  return it == small.end() ? nullptr : &it->second;
}

Result<StagedArchive> stage_archive(const std::string& path, const BlobStore& blobs) {
  ASSIGN_OR_RETURN(ArchivePtr a, open_archive(path, ArchiveFormat::kTar));
  StagedArchive staged;
  archive_entry* entry = nullptr;
  for (;;) {
    const int rc = archive_read_next_header(a.get(), &entry);
    if (rc == ARCHIVE_EOF) break;
    if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN) return archive_status(a.get(), path);
    ASSIGN_OR_RETURN(std::string name, clean_entry_path(archive_entry_pathname(entry), path));
    if (name.empty()) continue;
    if (const char* hard = archive_entry_hardlink(entry)) {
      ASSIGN_OR_RETURN(staged.aliases[name], link_target(name, hard, true, path));
      continue;
    }
    const mode_t type = archive_entry_filetype(entry);
    if (type == AE_IFLNK) {
      ASSIGN_OR_RETURN(staged.aliases[name],
                       link_target(name, archive_entry_symlink(entry), false, path));
      continue;
    }
    if (type != AE_IFREG) continue;  // directories and anything else carry no image data
    ASSIGN_OR_RETURN(std::unique_ptr<BlobWriter> writer, blobs.writer());
    std::string bytes;
    const bool keep = is_metadata_name(name) && archive_entry_size(entry) <= kSmallFileLimit;
    const void* block = nullptr;
    size_t size = 0;
    la_int64_t offset = 0;
    for (;;) {
      const int data_rc = archive_read_data_block(a.get(), &block, &size, &offset);
      if (data_rc == ARCHIVE_EOF) break;
      if (data_rc != ARCHIVE_OK) return archive_status(a.get(), path + ": " + name);
      RETURN_IF_ERROR(writer->write(block, size));
      if (keep) bytes.append(static_cast<const char*>(block), size);
    }
    ASSIGN_OR_RETURN(std::string digest, writer->finish());
    if (keep) staged.small[name] = std::move(bytes);
    const uint64_t written = writer->size();
    staged.files[name] = StagedFile{std::move(writer), std::move(digest), written};
  }
  return staged;
}

}  // namespace k3c::runtime::internal
