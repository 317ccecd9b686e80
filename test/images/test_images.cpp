// Image tarballs for tests (see test_images.h).
#include "images/test_images.h"

#include <archive.h>
#include <archive_entry.h>
#include <openssl/evp.h>

#include <nlohmann/json.hpp>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace k3c::testing {
namespace {

using nlohmann::json;

la_ssize_t append(archive*, void* data, const void* buffer, size_t size) {
  static_cast<std::string*>(data)->append(static_cast<const char*>(buffer), size);
  return static_cast<la_ssize_t>(size);
}

struct Writer {
  archive* a = archive_write_new();
  std::string out;
  explicit Writer(Compression compression) {
    archive_write_set_format_pax_restricted(a);
    if (compression == Compression::kGzip) archive_write_add_filter_gzip(a);
    if (compression == Compression::kZstd) archive_write_add_filter_zstd(a);
    archive_write_set_bytes_in_last_block(a, 1);
    if (archive_write_open(a, &out, nullptr, append, nullptr) != ARCHIVE_OK) {
      throw std::runtime_error(archive_error_string(a));
    }
  }
  void add(const TarEntry& e) {
    archive_entry* entry = archive_entry_new();
    archive_entry_set_pathname(entry, e.path.c_str());
    archive_entry_set_perm(entry, e.mode);
    archive_entry_set_uid(entry, e.uid);
    archive_entry_set_gid(entry, e.gid);
    archive_entry_set_mtime(entry, e.mtime, 0);
    switch (e.type) {
      case TarEntry::Type::kFile:
        archive_entry_set_filetype(entry, AE_IFREG);
        archive_entry_set_size(entry, static_cast<la_int64_t>(e.data.size()));
        break;
      case TarEntry::Type::kDir:
        archive_entry_set_filetype(entry, AE_IFDIR);
        break;
      case TarEntry::Type::kSymlink:
        archive_entry_set_filetype(entry, AE_IFLNK);
        archive_entry_set_symlink(entry, e.link.c_str());
        break;
      case TarEntry::Type::kHardlink:
        archive_entry_set_filetype(entry, AE_IFREG);
        archive_entry_set_hardlink(entry, e.link.c_str());
        break;
      case TarEntry::Type::kCharDevice:
        archive_entry_set_filetype(entry, AE_IFCHR);
        archive_entry_set_rdevmajor(entry, e.dev_major);
        archive_entry_set_rdevminor(entry, e.dev_minor);
        break;
      case TarEntry::Type::kFifo:
        archive_entry_set_filetype(entry, AE_IFIFO);
        break;
    }
    for (const auto& [key, value] : e.xattrs) {
      archive_entry_xattr_add_entry(entry, key.c_str(), value.data(), value.size());
    }
    if (archive_write_header(a, entry) != ARCHIVE_OK) {
      throw std::runtime_error(archive_error_string(a));
    }
    if (e.type == TarEntry::Type::kFile && !e.data.empty()) {
      archive_write_data(a, e.data.data(), e.data.size());
    }
    archive_entry_free(entry);
  }
  std::string finish() {
    archive_write_close(a);
    archive_write_free(a);
    return std::move(out);
  }
};

std::string digest_of(const std::string& bytes) { return "sha256:" + sha256_hex(bytes); }

std::string layer_media_type(Compression c) {
  if (c == Compression::kGzip) return "application/vnd.oci.image.layer.v1.tar+gzip";
  if (c == Compression::kZstd) return "application/vnd.oci.image.layer.v1.tar+zstd";
  return "application/vnd.oci.image.layer.v1.tar";
}

struct BuiltImage {
  std::vector<std::string> layer_blobs;  // as stored (maybe compressed)
  std::string config;
};

BuiltImage build(const TestImage& image) {
  BuiltImage built;
  json diff_ids = json::array();
  for (const auto& entries : image.layers) {
    diff_ids.push_back(digest_of(make_tar(entries, Compression::kNone)));
    built.layer_blobs.push_back(make_tar(entries, image.layer_compression));
  }
  json config = {{"Cmd", image.cmd},
                 {"Env", image.env},
                 {"User", image.user},
                 {"WorkingDir", image.working_dir},
                 {"ExposedPorts", {{"8080/tcp", json::object()}}},
                 {"Labels", {{"test", "yes"}}}};
  if (!image.entrypoint.empty()) config["Entrypoint"] = image.entrypoint;
  built.config = json{{"architecture", image.architecture},
                      {"os", "linux"},
                      {"config", config},
                      {"rootfs", {{"type", "layers"}, {"diff_ids", diff_ids}}}}
                     .dump();
  return built;
}

}  // namespace

TarEntry file(std::string path, std::string data, unsigned mode) {
  TarEntry e;
  e.path = std::move(path);
  e.data = std::move(data);
  e.mode = mode;
  return e;
}

TarEntry dir(std::string path, unsigned mode) {
  TarEntry e;
  e.path = std::move(path);
  e.type = TarEntry::Type::kDir;
  e.mode = mode;
  return e;
}

TarEntry symlink(std::string path, std::string target) {
  TarEntry e;
  e.path = std::move(path);
  e.type = TarEntry::Type::kSymlink;
  e.link = std::move(target);
  e.mode = 0777;
  return e;
}

TarEntry hardlink(std::string path, std::string target) {
  TarEntry e;
  e.path = std::move(path);
  e.type = TarEntry::Type::kHardlink;
  e.link = std::move(target);
  return e;
}

std::string make_tar(const std::vector<TarEntry>& entries, Compression compression) {
  Writer writer(compression);
  for (const TarEntry& e : entries) writer.add(e);
  return writer.finish();
}

std::string tar_of(const ArchiveFiles& files, Compression compression) {
  Writer writer(compression);
  for (const auto& [path, bytes] : files) writer.add(file(path, bytes));
  return writer.finish();
}

std::string sha256_hex(const std::string& bytes) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(bytes.data(), bytes.size(), md, &length, EVP_sha256(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    hex += kHex[md[i] >> 4];
    hex += kHex[md[i] & 15];
  }
  return hex;
}

ArchiveFiles docker_archive_files(const TestImage& image) {
  const BuiltImage built = build(image);
  ArchiveFiles files;
  const std::string config_name = sha256_hex(built.config) + ".json";
  json layers = json::array();
  for (const std::string& blob : built.layer_blobs) {
    const std::string name = sha256_hex(blob) + "/layer.tar";
    files.emplace_back(name, blob);
    layers.push_back(name);
  }
  files.emplace_back(config_name, built.config);
  json tags = json::array();
  if (!image.repo_tag.empty()) tags.push_back(image.repo_tag);
  files.emplace_back(
      "manifest.json",
      json::array({{{"Config", config_name}, {"RepoTags", tags}, {"Layers", layers}}}).dump());
  return files;
}

ArchiveFiles oci_layout_files(const TestImage& image) {
  const BuiltImage built = build(image);
  ArchiveFiles files;
  files.emplace_back("oci-layout", R"({"imageLayoutVersion":"1.0.0"})");
  json layers = json::array();
  for (const std::string& blob : built.layer_blobs) {
    files.emplace_back("blobs/sha256/" + sha256_hex(blob), blob);
    layers.push_back({{"mediaType", layer_media_type(image.layer_compression)},
                      {"digest", digest_of(blob)},
                      {"size", blob.size()}});
  }
  files.emplace_back("blobs/sha256/" + sha256_hex(built.config), built.config);
  const std::string manifest = json{
      {"schemaVersion", 2},
      {"mediaType", "application/vnd.oci.image.manifest.v1+json"},
      {"config",
       {{"mediaType", "application/vnd.oci.image.config.v1+json"},
        {"digest", digest_of(built.config)},
        {"size", built.config.size()}}},
      {"layers", layers}}.dump();
  files.emplace_back("blobs/sha256/" + sha256_hex(manifest), manifest);
  json descriptor = {{"mediaType", "application/vnd.oci.image.manifest.v1+json"},
                     {"digest", digest_of(manifest)},
                     {"size", manifest.size()}};
  if (!image.repo_tag.empty()) {
    descriptor["annotations"] = {{"io.containerd.image.name", image.repo_tag},
                                 {"org.opencontainers.image.ref.name", "test"}};
  }
  files.emplace_back("index.json",
                     json{{"schemaVersion", 2}, {"manifests", json::array({descriptor})}}.dump());
  return files;
}

RegistryImage registry_image(const TestImage& image) {
  RegistryImage out;
  for (auto& [path, bytes] : oci_layout_files(image)) {
    if (path == "index.json") {
      out.manifest_digest = json::parse(bytes)["manifests"][0]["digest"].get<std::string>();
    } else if (path.starts_with("blobs/sha256/")) {
      out.blobs["sha256:" + path.substr(13)] = bytes;
    }
  }
  out.manifest = out.blobs.at(out.manifest_digest);
  out.blobs.erase(out.manifest_digest);
  return out;
}

bool replace_file(ArchiveFiles& files, const std::string& path, std::string bytes) {
  for (auto& [name, content] : files) {
    if (name == path) {
      content = std::move(bytes);
      return true;
    }
  }
  return false;
}

TestImage busybox_image(const std::string& repo_tag) {
  TestImage image;
  image.repo_tag = repo_tag;
  image.cmd = {"sh"};
  image.env = {"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"};
  std::ifstream in(kBusyboxPath, std::ios::binary);
  if (!in) return image;
  std::string binary((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<TarEntry> layer = {dir("bin"), file("bin/busybox", std::move(binary), 0755),
                                 dir("etc"), dir("tmp", 01777), dir("root", 0700)};
  for (const char* applet :
       {"sh", "ash", "echo", "sleep", "cat", "ls", "id", "env", "hostname", "true", "false",
        "httpd", "wget", "nc", "ps", "kill", "mkdir", "rm", "touch", "head", "tail", "grep",
        "sed", "test", "printf", "dd", "mount", "stat", "wc", "date", "top", "yes", "tee"}) {
    layer.push_back(symlink(std::string("bin/") + applet, "busybox"));
  }
  layer.push_back(file("etc/passwd",
                       "root:x:0:0:root:/root:/bin/sh\n"
                       "app:x:1000:1000:app:/tmp:/bin/sh\n"
                       "nobody:x:65534:65534:nobody:/nonexistent:/bin/false\n"));
  layer.push_back(file("etc/group", "root:x:0:\napp:x:1000:\nnogroup:x:65534:\n"));
  image.layers.push_back(std::move(layer));
  return image;
}

}  // namespace k3c::testing
