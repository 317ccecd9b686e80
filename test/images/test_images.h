// Building image tarballs in tests, with libarchive and nothing downloaded: layer tars with
// any entry type (whiteouts, hard links, devices, xattrs, hostile paths), and whole images as
// docker-archive or OCI layout tarballs, as files that a test may alter before taring them
// (drop a layer, flip a byte) to make bad input on purpose.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace k3c::testing {

enum class Compression { kNone, kGzip, kZstd };

struct TarEntry {
  enum class Type { kFile, kDir, kSymlink, kHardlink, kCharDevice, kFifo };
  std::string path;
  Type type = Type::kFile;
  std::string data;  // file content
  std::string link;  // symlink target or hard link target path
  unsigned mode = 0644;
  unsigned uid = 0;
  unsigned gid = 0;
  long mtime = 1700000000;
  unsigned dev_major = 0;
  unsigned dev_minor = 0;
  std::map<std::string, std::string> xattrs;
};

TarEntry file(std::string path, std::string data, unsigned mode = 0644);
TarEntry dir(std::string path, unsigned mode = 0755);
TarEntry symlink(std::string path, std::string target);
TarEntry hardlink(std::string path, std::string target);

// A tar (pax format) of the entries, compressed as asked.
std::string make_tar(const std::vector<TarEntry>& entries, Compression compression);

// The files of an image archive in order: (path in the tarball, bytes).
using ArchiveFiles = std::vector<std::pair<std::string, std::string>>;

// A tar of plain files (directories implied), for whole image tarballs.
std::string tar_of(const ArchiveFiles& files, Compression compression);

struct TestImage {
  std::string repo_tag;  // "busybox:test"; "" for none
  std::vector<std::vector<TarEntry>> layers;
  Compression layer_compression = Compression::kNone;
  std::vector<std::string> entrypoint;
  std::vector<std::string> cmd = {"sh"};
  std::vector<std::string> env = {"PATH=/bin"};
  std::string user;
  std::string working_dir;
  std::string architecture = "amd64";
};

// `docker save` layout: manifest.json, <hex>.json config, <hex>/layer.tar, repositories.
ArchiveFiles docker_archive_files(const TestImage& image);
// OCI layout: oci-layout, index.json (annotated with the name), blobs/sha256/<hex>.
ArchiveFiles oci_layout_files(const TestImage& image);

// An image as a registry holds it: the manifest (served by tag or digest) and the blobs
// (config and layers) by digest ("sha256:<hex>").
struct RegistryImage {
  std::string manifest;
  std::string manifest_digest;
  std::map<std::string, std::string> blobs;
};
RegistryImage registry_image(const TestImage& image);

std::string sha256_hex(const std::string& bytes);

// Where Debian's busybox-static installs its binary; tests that run containers skip (with a
// message) when it is missing.
inline constexpr char kBusyboxPath[] = "/bin/busybox";

// A one-layer image of busybox-static: /bin/busybox with links for the applets tests use
// (sh, echo, sleep, cat, httpd, ...), /etc/passwd and /etc/group with root, a user "app"
// (1000:1000) and nobody, /tmp (1777). Empty `layers` when the binary is missing.
TestImage busybox_image(const std::string& repo_tag);

// Replaces the bytes at `path`; returns false when no such file.
bool replace_file(ArchiveFiles& files, const std::string& path, std::string bytes);

}  // namespace k3c::testing
