// Plans for OCI image layouts (an oci-archive is a tarball of one): index.json lists
// descriptors of manifests or of nested indexes (multi-platform images, of which the host's
// platform is taken); every blob lives at blobs/<alg>/<hex> and must hash to its name.
#include <sys/utsname.h>

#include <nlohmann/json.hpp>

#include "runtime/digest.h"
#include "runtime/internal/import_plan.h"
#include "runtime/internal/json_fields.h"
#include "runtime/reference.h"

namespace k3c::runtime::internal {
namespace {

using nlohmann::json;

constexpr size_t kManifestLimit = 4 << 20;
constexpr int kMaxIndexDepth = 4;

bool is_index_type(std::string_view type) {
  return type == "application/vnd.oci.image.index.v1+json" ||
         type == "application/vnd.docker.distribution.manifest.list.v2+json";
}

Result<PlannedBlob> layout_descriptor(const json& d, const std::string& what) {
  if (!d.is_object()) return error(Code::kInvalid, what + " is not a descriptor");
  PlannedBlob blob;
  blob.digest = string_field(d, "digest");
  RETURN_IF_ERROR(check_digest(blob.digest, what));
  blob.media_type = string_field(d, "mediaType");
  auto size = d.find("size");
  if (size == d.end() || !size->is_number_integer() || size->get<int64_t>() < 0) {
    return error(Code::kInvalid, what + " has no valid size");
  }
  blob.size = size->get<int64_t>();
  blob.archive_path = "blobs/sha256/" + std::string(digest_hex(blob.digest));
  return blob;
}

// The image name an index entry carries: containerd's full name annotation, else the OCI
// ref.name when it is a whole reference ("docker.io/library/busybox:1.36" as podman and
// skopeo write it). A bare tag ("latest") names no repository, so the image stays unnamed.
Result<std::vector<std::string>> names_of(const json& d) {
  std::vector<std::string> names;
  auto annotations = d.find("annotations");
  if (annotations == d.end() || !annotations->is_object()) return names;
  std::string name = string_field(*annotations, "io.containerd.image.name");
  if (name.empty()) {
    name = string_field(*annotations, "org.opencontainers.image.ref.name");
    if (name.find_first_of("/:") == std::string::npos) name.clear();
  }
  if (name.empty()) return names;
  ASSIGN_OR_RETURN(Reference ref, parse_reference(name));
  names.push_back(ref.to_string());
  return names;
}

bool platform_matches(const json& d, const Platform& host) {
  auto p = d.find("platform");
  if (p == d.end() || !p->is_object()) return false;
  if (string_field(*p, "os") != host.os || string_field(*p, "architecture") != host.architecture) {
    return false;
  }
  const std::string variant = string_field(*p, "variant");
  return variant.empty() || host.variant.empty() || variant == host.variant;
}

// Finds the manifest for `host` under the descriptor `d` (a manifest or an index).
Result<PlannedBlob> resolve_manifest(StagedArchive& staged, const json& d, const Platform& host,
                                     const std::string& what, int depth) {
  ASSIGN_OR_RETURN(PlannedBlob blob, layout_descriptor(d, what));
  ASSIGN_OR_RETURN(std::string bytes, read_staged(staged, blob.archive_path, kManifestLimit));
  const json doc = json::parse(bytes, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return error(Code::kInvalid, what + " " + blob.digest + " is not JSON");
  const std::string type =
      blob.media_type.empty() ? string_field(doc, "mediaType") : blob.media_type;
  if (!is_index_type(type) && !doc.contains("manifests")) return blob;
  if (depth >= kMaxIndexDepth) return error(Code::kInvalid, what + ": indexes nested too deep");
  auto manifests = doc.find("manifests");
  if (manifests == doc.end() || !manifests->is_array()) {
    return error(Code::kInvalid, what + " " + blob.digest + " has no manifests list");
  }
  for (const json& child : *manifests) {
    if (platform_matches(child, host)) {
      return resolve_manifest(staged, child, host, what + " > " + blob.digest, depth + 1);
    }
  }
  return error(Code::kNotFound, what + " " + blob.digest + " has no manifest for " + host.os + "/" +
                                    host.architecture);
}

Result<PlannedImage> plan_manifest(StagedArchive& staged, PlannedBlob manifest) {
  ASSIGN_OR_RETURN(std::string bytes, read_staged(staged, manifest.archive_path, kManifestLimit));
  const json doc = json::parse(bytes, nullptr, /*allow_exceptions=*/false);
  const std::string what = "manifest " + manifest.digest;
  if (!doc.is_object()) return error(Code::kInvalid, what + " is not a JSON object");
  PlannedImage plan;
  ASSIGN_OR_RETURN(plan.config, layout_descriptor(doc.value("config", json()), what + " config"));
  auto layers = doc.find("layers");
  if (layers == doc.end() || !layers->is_array()) {
    return error(Code::kInvalid, what + " has no layers list");
  }
  for (size_t i = 0; i < layers->size(); ++i) {
    ASSIGN_OR_RETURN(PlannedBlob layer,
                     layout_descriptor((*layers)[i], what + " layer " + std::to_string(i)));
    plan.layers.push_back(std::move(layer));
  }
  plan.manifest = std::move(manifest);
  return plan;
}

}  // namespace

Platform host_platform() {
  utsname name{};
  uname(&name);
  const std::string machine = name.machine;
  if (machine == "x86_64") return {"linux", "amd64", ""};
  if (machine == "aarch64" || machine == "arm64") return {"linux", "arm64", "v8"};
  if (machine.starts_with("armv7")) return {"linux", "arm", "v7"};
  if (machine.starts_with("armv6")) return {"linux", "arm", "v6"};
  if (machine == "i686" || machine == "i386") return {"linux", "386", ""};
  return {"linux", machine, ""};
}

Result<std::vector<PlannedImage>> plan_oci_layout(StagedArchive& staged, const Platform& host) {
  const std::string* layout = staged.small_file("oci-layout");
  if (layout == nullptr) return error(Code::kInvalid, "no oci-layout file");
  const json layout_doc = json::parse(*layout, nullptr, /*allow_exceptions=*/false);
  if (!layout_doc.is_object() || !layout_doc.contains("imageLayoutVersion")) {
    return error(Code::kInvalid, "oci-layout has no imageLayoutVersion");
  }
  const std::string* index_text = staged.small_file("index.json");
  if (index_text == nullptr) return error(Code::kInvalid, "OCI layout without index.json");
  const json index = json::parse(*index_text, nullptr, /*allow_exceptions=*/false);
  if (!index.is_object() || !index.contains("manifests") || !index["manifests"].is_array()) {
    return error(Code::kInvalid, "index.json has no manifests list");
  }
  std::vector<PlannedImage> plans;
  for (size_t i = 0; i < index["manifests"].size(); ++i) {
    const json& d = index["manifests"][i];
    const std::string what = "index.json manifests[" + std::to_string(i) + "]";
    ASSIGN_OR_RETURN(PlannedBlob manifest, resolve_manifest(staged, d, host, what, 0));
    ASSIGN_OR_RETURN(PlannedImage plan, plan_manifest(staged, std::move(manifest)));
    ASSIGN_OR_RETURN(plan.references, names_of(d));
    plans.push_back(std::move(plan));
  }
  if (plans.empty()) return error(Code::kInvalid, "index.json lists no images");
  return plans;
}

}  // namespace k3c::runtime::internal
