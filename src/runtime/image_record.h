// What the image store knows about one image: its references, the parts of its OCI config a
// container needs, and its layers. Records are plain data, persisted as JSON by ImageIndex.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace k3c::runtime {

// The runtime-relevant part of an OCI image config ("config" in the config blob).
struct ImageConfig {
  std::vector<std::string> entrypoint;
  std::vector<std::string> cmd;
  std::vector<std::string> env;  // "NAME=value"
  std::string user;
  std::string working_dir;
  std::vector<std::string> exposed_ports;  // "8080/tcp"
  std::map<std::string, std::string> labels;
  std::string stop_signal;
};

struct LayerInfo {
  std::string digest;      // the blob as stored (maybe compressed)
  std::string diff_id;     // sha256 of the uncompressed tar
  std::string media_type;  // OCI media type of the blob
  uint64_t size = 0;       // blob bytes
};

struct ImageRecord {
  std::string id;                       // the config digest, as CRI reports image ids
  std::string manifest_digest;          // the stored (or, for docker-archive, synthesised) manifest
  std::vector<std::string> references;  // normalised "repo:tag" and "repo@digest"
  std::string os;
  std::string architecture;
  std::string variant;
  ImageConfig config;
  std::vector<LayerInfo> layers;
  uint64_t size = 0;  // bytes of manifest + config + layer blobs
};

// What a config blob says: platform, runtime config and the layer diff_ids in order.
struct ParsedConfig {
  std::string os;
  std::string architecture;
  std::string variant;
  ImageConfig config;
  std::vector<std::string> diff_ids;
};

// Parses an OCI / Docker image config; kInvalid naming what is wrong.
Result<ParsedConfig> parse_image_config(std::string_view bytes);

nlohmann::json to_json(const ImageRecord& record);
Result<ImageRecord> image_record_from_json(const nlohmann::json& json);

}  // namespace k3c::runtime
