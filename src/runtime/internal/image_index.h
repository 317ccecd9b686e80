// The image metadata of the store: every ImageRecord, in one JSON file (<root>/images.json)
// replaced atomically on each change, so a crash leaves the old or the new list. A reference
// names at most one image: adding an image moves its references away from any other.
// Not thread-safe; ImageStore serialises changes under its lock.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "runtime/image_record.h"

namespace k3c::runtime::internal {

class ImageIndex {
 public:
  // A missing file is an empty index; a damaged one is kCorrupt.
  static Result<ImageIndex> load(const std::string& path);
  Status save() const;

  const std::vector<ImageRecord>& images() const { return images_; }
  // By normalised reference ("docker.io/library/busybox:latest"), by full id
  // ("sha256:<hex>") or by an unambiguous prefix of the id's hex (at least 4 characters).
  // kNotFound, or kInvalid for an ambiguous prefix.
  Result<ImageRecord> find(std::string_view ref_or_id) const;
  // Adds the image, or merges references into the stored one with the same id.
  void add(ImageRecord image);
  // Removes the image with this id; false when there was none.
  bool remove(std::string_view id);

 private:
  explicit ImageIndex(std::string path) : path_(std::move(path)) {}
  std::string path_;
  std::vector<ImageRecord> images_;
};

}  // namespace k3c::runtime::internal
