// The persisted image list (see image_index.h).
#include "runtime/internal/image_index.h"

#include <algorithm>

#include "runtime/files.h"
#include "runtime/reference.h"

namespace k3c::runtime::internal {
namespace {

constexpr size_t kIndexLimit = 64 << 20;

bool is_hex(std::string_view text) {
  return std::all_of(text.begin(), text.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

}  // namespace

Result<ImageIndex> ImageIndex::load(const std::string& path) {
  ImageIndex index(path);
  Result<std::string> text = read_file(path, kIndexLimit);
  if (!text.is_ok()) {
    if (text.status().code() == Code::kNotFound) return index;
    return text.status();
  }
  nlohmann::json doc = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc.contains("images") || !doc["images"].is_array()) {
    return error(Code::kCorrupt, path + ": not an image index");
  }
  for (const nlohmann::json& item : doc["images"]) {
    Result<ImageRecord> record = image_record_from_json(item);
    if (!record.is_ok()) return error(Code::kCorrupt, path + ": " + record.status().message());
    index.images_.push_back(std::move(record).value());
  }
  return index;
}

Status ImageIndex::save() const {
  nlohmann::json images = nlohmann::json::array();
  for (const ImageRecord& image : images_) images.push_back(to_json(image));
  return write_file_atomic(path_, nlohmann::json{{"images", images}}.dump(1) + "\n");
}

Result<ImageRecord> ImageIndex::find(std::string_view ref_or_id) const {
  std::string_view hex = ref_or_id;
  if (hex.starts_with("sha256:")) hex.remove_prefix(7);
  if (hex.size() >= 4 && hex.size() <= 64 && is_hex(hex)) {
    const ImageRecord* match = nullptr;
    for (const ImageRecord& image : images_) {
      if (std::string_view(image.id).substr(7).starts_with(hex)) {
        if (match != nullptr) {
          return error(Code::kInvalid, "image id prefix " + std::string(hex) + " is ambiguous");
        }
        match = &image;
      }
    }
    if (match != nullptr) return *match;
  }
  Result<Reference> ref = parse_reference(ref_or_id);
  if (ref.is_ok()) {
    const std::string name = ref->to_string();
    for (const ImageRecord& image : images_) {
      if (std::find(image.references.begin(), image.references.end(), name) !=
          image.references.end()) {
        return image;
      }
    }
  }
  return error(Code::kNotFound, "image \"" + std::string(ref_or_id) + "\" not found");
}

void ImageIndex::add(ImageRecord image) {
  for (ImageRecord& other : images_) {
    if (other.id == image.id) continue;
    std::erase_if(other.references, [&](const std::string& ref) {
      return std::find(image.references.begin(), image.references.end(), ref) !=
             image.references.end();
    });
  }
  for (ImageRecord& same : images_) {
    if (same.id != image.id) continue;
    for (std::string& ref : image.references) {
      if (std::find(same.references.begin(), same.references.end(), ref) == same.references.end()) {
        same.references.push_back(std::move(ref));
      }
    }
    std::sort(same.references.begin(), same.references.end());
    return;
  }
  std::sort(image.references.begin(), image.references.end());
  images_.push_back(std::move(image));
}

bool ImageIndex::remove(std::string_view id) {
  return std::erase_if(images_, [&](const ImageRecord& image) { return image.id == id; }) > 0;
}

}  // namespace k3c::runtime::internal
