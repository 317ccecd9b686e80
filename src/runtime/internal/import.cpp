// Verifying and committing planned images (see import.h).
#include "runtime/internal/import.h"

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "runtime/files.h"
#include "runtime/internal/archive.h"
#include "runtime/internal/import_plan.h"

namespace k3c::runtime::internal {
namespace {

constexpr size_t kConfigLimit = 8 << 20;

// The staged file a planned blob names, checked against the digest and size it must have.
Result<StagedFile*> verified(StagedArchive& staged, const PlannedBlob& blob,
                             const std::string& what) {
  StagedFile* file = staged.find(blob.archive_path);
  if (file == nullptr) {
    return error(Code::kInvalid, what + " " + (blob.digest.empty() ? "" : blob.digest + " ") +
                                     "is missing from the archive (" + blob.archive_path + ")");
  }
  if (!blob.digest.empty() && file->digest != blob.digest) {
    return error(Code::kInvalid,
                 what + " " + blob.digest + ": digest mismatch (content is " + file->digest + ")");
  }
  if (blob.size >= 0 && static_cast<uint64_t>(blob.size) != file->size) {
    return error(Code::kInvalid, what + " " + file->digest + ": size " +
                                     std::to_string(file->size) + " but the manifest says " +
                                     std::to_string(blob.size));
  }
  return file;
}

std::string oci_layer_type(const std::string& compression) {
  if (compression == "tar+gzip") return "application/vnd.oci.image.layer.v1.tar+gzip";
  if (compression == "tar+zstd") return "application/vnd.oci.image.layer.v1.tar+zstd";
  return "application/vnd.oci.image.layer.v1.tar";
}

// docker-archive has no manifest blob; one is written in OCI form so every image has one.
std::string synthesised_manifest(const ImageRecord& record, uint64_t config_size) {
  nlohmann::json layers = nlohmann::json::array();
  for (const LayerInfo& l : record.layers) {
    layers.push_back({{"mediaType", l.media_type}, {"digest", l.digest}, {"size", l.size}});
  }
  return nlohmann::json{{"schemaVersion", 2},
                        {"mediaType", "application/vnd.oci.image.manifest.v1+json"},
                        {"config",
                         {{"mediaType", "application/vnd.oci.image.config.v1+json"},
                          {"digest", record.id},
                          {"size", config_size}}},
                        {"layers", layers}}
      .dump();
}

struct Verified {
  ImageRecord record;
  std::vector<StagedFile*> blobs;  // to commit: config, layers, manifest (if staged)
};

Result<Verified> verify(StagedArchive& staged, const PlannedImage& plan) {
  Verified v;
  ASSIGN_OR_RETURN(StagedFile * config, verified(staged, plan.config, "config"));
  ASSIGN_OR_RETURN(std::string config_bytes,
                   read_staged(staged, plan.config.archive_path, kConfigLimit));
  ASSIGN_OR_RETURN(ParsedConfig parsed, parse_image_config(config_bytes));
  if (parsed.diff_ids.size() != plan.layers.size()) {
    return error(Code::kInvalid, "image " + config->digest + " lists " +
                                     std::to_string(plan.layers.size()) +
                                     " layers but its config has " +
                                     std::to_string(parsed.diff_ids.size()) + " diff_ids");
  }
  ImageRecord& r = v.record;
  r.id = config->digest;
  r.references = plan.references;
  r.os = parsed.os;
  r.architecture = parsed.architecture;
  r.variant = parsed.variant;
  r.config = std::move(parsed.config);
  r.size = config->size;
  v.blobs.push_back(config);
  for (size_t i = 0; i < plan.layers.size(); ++i) {
    const std::string what = "layer " + std::to_string(i);
    ASSIGN_OR_RETURN(StagedFile * layer, verified(staged, plan.layers[i], what));
    const std::string& temp = layer->writer->temp_path();
    ASSIGN_OR_RETURN(std::string compression, layer_compression(temp));
    std::string diff_id = layer->digest;
    if (compression != "tar") {
      ASSIGN_OR_RETURN(diff_id, uncompressed_digest(temp));
    }
    if (diff_id != parsed.diff_ids[i]) {
      return error(Code::kInvalid, what + " " + layer->digest + " unpacks to " + diff_id +
                                       " but the config's diff_id is " + parsed.diff_ids[i]);
    }
    const std::string& type = plan.layers[i].media_type;
    r.layers.push_back(
        {layer->digest, diff_id, type.empty() ? oci_layer_type(compression) : type, layer->size});
    r.size += layer->size;
    v.blobs.push_back(layer);
  }
  if (!plan.manifest.archive_path.empty()) {
    ASSIGN_OR_RETURN(StagedFile * manifest, verified(staged, plan.manifest, "manifest"));
    r.manifest_digest = manifest->digest;
    r.size += manifest->size;
    v.blobs.push_back(manifest);
  }
  return v;
}

}  // namespace

Result<std::string> read_staged(StagedArchive& staged, const std::string& path, size_t limit) {
  StagedFile* file = staged.find(path);
  if (file == nullptr) return error(Code::kInvalid, path + " is missing from the archive");
  return read_file(file->writer->temp_path(), limit);
}

Result<std::vector<ImageRecord>> commit_images(StagedArchive& staged,
                                               const std::vector<PlannedImage>& plans,
                                               const BlobStore& blobs, const std::string& what) {
  std::vector<Verified> images;
  for (const PlannedImage& plan : plans) {
    Result<Verified> v = verify(staged, plan);
    if (!v.is_ok()) return error(v.status().code(), what + ": " + v.status().message());
    images.push_back(std::move(v).value());
  }
  // Everything checked: commit. Each blob was hashed on the way in, so commit only renames.
  std::vector<ImageRecord> records;
  for (Verified& v : images) {
    for (StagedFile* blob : v.blobs) RETURN_IF_ERROR(blob->writer->commit(blob->digest));
    if (v.record.manifest_digest.empty()) {
      const std::string manifest = synthesised_manifest(v.record, v.blobs.front()->size);
      ASSIGN_OR_RETURN(v.record.manifest_digest, blobs.put(manifest));
      v.record.size += manifest.size();
    }
    records.push_back(std::move(v.record));
  }
  return records;
}

Result<std::vector<ImageRecord>> import_tarball(const std::string& path, const BlobStore& blobs) {
  if (access(path.c_str(), R_OK) != 0) return errno_status(path, errno);
  ASSIGN_OR_RETURN(StagedArchive staged, stage_archive(path, blobs));
  Result<std::vector<PlannedImage>> plans = error(Code::kInvalid, "");
  if (staged.small_file("oci-layout") != nullptr && staged.small_file("index.json") != nullptr) {
    plans = plan_oci_layout(staged, host_platform());
  } else if (staged.small_file("manifest.json") != nullptr) {
    plans = plan_docker_archive(staged);
  } else {
    return error(Code::kInvalid, path +
                                     ": not an image archive: it has neither manifest.json "
                                     "(docker-archive) nor oci-layout and index.json (OCI layout)");
  }
  if (!plans.is_ok()) return error(plans.status().code(), path + ": " + plans.status().message());
  return commit_images(staged, *plans, blobs, path);
}

}  // namespace k3c::runtime::internal
