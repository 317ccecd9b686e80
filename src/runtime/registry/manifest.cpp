// Manifest parsing and platform selection (see manifest.h).
#include "runtime/registry/manifest.h"

#include <nlohmann/json.hpp>

#include "runtime/digest.h"
#include "runtime/internal/json_fields.h"

namespace k3c::runtime::registry {
namespace {

using nlohmann::json;

constexpr size_t kMaxEntries = 1000;

Result<Descriptor> descriptor(const json& d, const std::string& what) {
  if (!d.is_object()) return error(Code::kInvalid, what + " is not a descriptor");
  Descriptor out;
  auto type = d.find("mediaType");
  if (type != d.end() && type->is_string()) out.media_type = type->get<std::string>();
  auto digest = d.find("digest");
  if (digest == d.end() || !digest->is_string()) {
    return error(Code::kInvalid, what + " has no digest");
  }
  out.digest = digest->get<std::string>();
  RETURN_IF_ERROR(check_digest(out.digest, what + " digest"));
  auto size = d.find("size");
  if (size == d.end() || !size->is_number_integer() || size->get<int64_t>() < 0) {
    return error(Code::kInvalid, what + " has no valid size");
  }
  out.size = size->get<int64_t>();
  if (auto p = d.find("platform"); p != d.end() && p->is_object()) {
    out.platform.os = internal::string_field(*p, "os");
    out.platform.architecture = internal::string_field(*p, "architecture");
    out.platform.variant = internal::string_field(*p, "variant");
  }
  return out;
}

// containerd's normalisation of what images and hosts call their architecture.
std::string normal_arch(const std::string& arch) {
  if (arch == "x86_64" || arch == "x86-64") return "amd64";
  if (arch == "aarch64") return "arm64";
  if (arch == "armhf") return "arm";
  if (arch == "i386") return "386";
  return arch;
}

std::string normal_variant(const std::string& arch, const std::string& variant) {
  if (arch == "arm64" && variant == "8") return "v8";
  if (arch == "arm" && variant.size() == 1) return "v" + variant;
  return variant;
}

// How well an entry fits: 0 = not at all, higher is better.
int fitness(const Descriptor& d, const internal::Platform& host) {
  const std::string arch = normal_arch(d.platform.architecture);
  const std::string host_arch = normal_arch(host.architecture);
  if (d.platform.os != host.os || arch != host_arch) return 0;
  const std::string variant = normal_variant(arch, d.platform.variant);
  const std::string host_variant = normal_variant(host_arch, host.variant);
  if (variant == host_variant) return 100;
  if (variant.empty() || host_variant.empty()) return 50;
  if (arch == "arm64" && (variant == "v8" || host_variant == "v8")) return 50;
  // arm: an older variant runs on a newer CPU (v7 runs v6 and v5 images).
  if (arch == "arm" && variant.size() == 2 && host_variant.size() == 2 && variant[0] == 'v' &&
      host_variant[0] == 'v' && variant[1] < host_variant[1]) {
    return 10 + (variant[1] - '0');
  }
  return 0;
}

}  // namespace

std::string manifest_accept() {
  return std::string(kOciIndex) + ", " + std::string(kDockerList) + ", " +
         std::string(kOciManifest) + ", " + std::string(kDockerManifest);
}

Result<Manifest> parse_manifest(std::string_view bytes, std::string_view content_type) {
  const json doc = json::parse(bytes, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return error(Code::kInvalid, "the manifest is not a JSON object");
  Manifest m;
  std::string type(content_type.substr(0, content_type.find(';')));
  while (!type.empty() && type.back() == ' ') type.pop_back();
  if (type.empty() || type == "application/json" || type == "text/plain" ||
      type == "application/octet-stream") {
    type = internal::string_field(doc, "mediaType");
  }
  if (type.empty()) {
    // An OCI document may leave mediaType out: its shape says what it is.
    type = doc.contains("manifests") ? kOciIndex : kOciManifest;
  }
  m.media_type = type;
  if (type.starts_with("application/vnd.docker.distribution.manifest.v1") ||
      internal::int_field(doc, "schemaVersion", 0) == 1) {
    return error(Code::kInvalid,
                 "Docker Image Format v1 and Docker Image manifest version 2, schema 1 are not "
                 "supported (media type " +
                     type + ")");
  }
  if (type == kOciIndex || type == kDockerList) {
    m.is_index = true;
    auto entries = doc.find("manifests");
    if (entries == doc.end() || !entries->is_array()) {
      return error(Code::kInvalid, "the index has no manifests list");
    }
    if (entries->size() > kMaxEntries) return error(Code::kInvalid, "the index is too long");
    for (size_t i = 0; i < entries->size(); ++i) {
      ASSIGN_OR_RETURN(Descriptor d, descriptor((*entries)[i], "index entry " + std::to_string(i)));
      m.manifests.push_back(std::move(d));
    }
    return m;
  }
  if (type != kOciManifest && type != kDockerManifest) {
    return error(Code::kInvalid, "unsupported manifest media type \"" + type + "\"");
  }
  ASSIGN_OR_RETURN(m.config, descriptor(doc.value("config", json()), "the manifest's config"));
  auto layers = doc.find("layers");
  if (layers == doc.end() || !layers->is_array()) {
    return error(Code::kInvalid, "the manifest has no layers list");
  }
  if (layers->size() > kMaxEntries)
    return error(Code::kInvalid, "the manifest has too many layers");
  for (size_t i = 0; i < layers->size(); ++i) {
    ASSIGN_OR_RETURN(Descriptor d, descriptor((*layers)[i], "layer " + std::to_string(i)));
    m.layers.push_back(std::move(d));
  }
  return m;
}

Result<Descriptor> select_platform(const std::vector<Descriptor>& entries,
                                   const internal::Platform& host) {
  const Descriptor* best = nullptr;
  int best_fit = 0;
  for (const Descriptor& d : entries) {
    const int fit = fitness(d, host);
    if (fit > best_fit) {
      best = &d;
      best_fit = fit;
    }
  }
  if (best != nullptr) return *best;
  std::string offered;
  for (const Descriptor& d : entries) {
    std::string p = d.platform.os + "/" + d.platform.architecture;
    if (!d.platform.variant.empty()) p += "/" + d.platform.variant;
    offered += (offered.empty() ? "" : ", ") + p;
  }
  std::string wanted = host.os + "/" + host.architecture;
  if (!host.variant.empty()) wanted += "/" + host.variant;
  return error(Code::kNotFound, "no match for platform in manifest: " + wanted +
                                    " (the index offers " +
                                    (offered.empty() ? "nothing" : offered) + ")");
}

}  // namespace k3c::runtime::registry
