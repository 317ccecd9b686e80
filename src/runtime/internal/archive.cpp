// libarchive reading helpers (see archive.h).
#include "runtime/internal/archive.h"

#include <fcntl.h>
#include <unistd.h>

#include <vector>

#include "runtime/digest.h"
#include "runtime/files.h"

namespace k3c::runtime::internal {

Status archive_status(archive* a, std::string_view what) {
  const char* text = archive_error_string(a);
  return error(Code::kInvalid, std::string(what) + ": " + (text ? text : "unreadable archive"));
}

Result<ArchivePtr> open_archive(const std::string& path, ArchiveFormat format, int fd) {
  ArchivePtr a(archive_read_new());
  if (!a) return error(Code::kInternal, "libarchive: out of memory");
  archive_read_support_filter_none(a.get());
  archive_read_support_filter_gzip(a.get());
  archive_read_support_filter_zstd(a.get());
  if (format == ArchiveFormat::kTar) {
    archive_read_support_format_tar(a.get());
    archive_read_support_format_gnutar(a.get());
  } else {
    archive_read_support_format_raw(a.get());
  }
  const int rc = fd >= 0 ? archive_read_open_fd(a.get(), fd, 65536)
                         : archive_read_open_filename(a.get(), path.c_str(), 65536);
  if (rc != ARCHIVE_OK) return archive_status(a.get(), path);
  return a;
}

Result<std::string> clean_entry_path(std::string_view raw, std::string_view what) {
  std::vector<std::string_view> parts;
  for (size_t start = 0; start <= raw.size();) {
    size_t end = raw.find('/', start);
    if (end == std::string_view::npos) end = raw.size();
    std::string_view part = raw.substr(start, end - start);
    start = end + 1;
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      return error(Code::kInvalid, std::string(what) + ": entry \"" + std::string(raw) +
                                       "\" climbs out of the archive with \"..\"");
    }
    parts.push_back(part);
  }
  if (parts.empty()) return std::string();
  std::string clean;
  for (std::string_view part : parts) {
    if (!clean.empty()) clean += '/';
    clean += part;
  }
  return clean;
}

Result<std::string> uncompressed_digest(const std::string& path) {
  ASSIGN_OR_RETURN(ArchivePtr a, open_archive(path, ArchiveFormat::kRaw));
  archive_entry* entry = nullptr;
  if (archive_read_next_header(a.get(), &entry) != ARCHIVE_OK) {
    return archive_status(a.get(), "layer " + path);
  }
  Sha256 hasher;
  const void* block = nullptr;
  size_t size = 0;
  la_int64_t offset = 0;
  for (;;) {
    const int rc = archive_read_data_block(a.get(), &block, &size, &offset);
    if (rc == ARCHIVE_EOF) break;
    if (rc != ARCHIVE_OK) return archive_status(a.get(), "layer " + path);
    hasher.update(block, size);
  }
  return hasher.finish();
}

Result<std::string> layer_compression(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno_status("open " + path, errno);
  unsigned char magic[512] = {};
  const ssize_t n = read(fd, magic, sizeof magic);
  close(fd);
  if (n >= 2 && magic[0] == 0x1f && magic[1] == 0x8b) return std::string("tar+gzip");
  if (n >= 4 && magic[0] == 0x28 && magic[1] == 0xb5 && magic[2] == 0x2f && magic[3] == 0xfd) {
    return std::string("tar+zstd");
  }
  // An uncompressed tar has "ustar" at offset 257; an empty layer is 1024 zero bytes.
  if (n == 512 &&
      (std::string_view(reinterpret_cast<char*>(magic) + 257, 5) == "ustar" || magic[0] == 0)) {
    return std::string("tar");
  }
  return error(Code::kInvalid, "layer is neither a tar nor a gzip or zstd compressed tar");
}

}  // namespace k3c::runtime::internal
