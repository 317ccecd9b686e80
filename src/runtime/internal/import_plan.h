// What an image tarball contains, read from its format's metadata before anything is
// committed: one PlannedImage per image, naming the staged files it needs. docker-archive
// (`docker save`, `podman save`: manifest.json) and OCI layout/archive (oci-layout,
// index.json, blobs/sha256) each produce plans; import.cpp verifies and commits them.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "runtime/internal/staged_archive.h"

namespace k3c::runtime::internal {

struct PlannedBlob {
  std::string archive_path;  // where it is in the tarball
  std::string digest;        // what it must hash to ("" = whatever it hashes to)
  int64_t size = -1;         // what its size must be (-1 = unchecked)
  std::string media_type;
};

struct PlannedImage {
  std::vector<std::string> references;  // normalised
  PlannedBlob config;
  PlannedBlob manifest;  // OCI: the manifest blob; docker-archive: none (synthesised later)
  std::vector<PlannedBlob> layers;
};

// The host's platform as OCI names it ("linux", "amd64", "" or "v7"/"v8").
struct Platform {
  std::string os;
  std::string architecture;
  std::string variant;
};
Platform host_platform();

Result<std::vector<PlannedImage>> plan_docker_archive(const StagedArchive& staged);
Result<std::vector<PlannedImage>> plan_oci_layout(StagedArchive& staged, const Platform& host);

// The bytes of a staged file (bounded), for reading manifests and configs before commit.
Result<std::string> read_staged(StagedArchive& staged, const std::string& path, size_t limit);

}  // namespace k3c::runtime::internal
