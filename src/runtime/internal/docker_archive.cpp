// Plans for docker-archive tarballs (`docker save`, `podman save`): manifest.json is a list of
// {Config, RepoTags, Layers} naming files of the tarball.
#include <nlohmann/json.hpp>

#include "runtime/internal/archive.h"
#include "runtime/internal/import_plan.h"
#include "runtime/reference.h"

namespace k3c::runtime::internal {
namespace {

Result<std::string> archive_path(const nlohmann::json& value, const std::string& what) {
  if (!value.is_string() || value.get<std::string>().empty()) {
    return error(Code::kInvalid, "manifest.json: " + what + " is not a file name");
  }
  return clean_entry_path(value.get<std::string>(), "manifest.json: " + what);
}

}  // namespace

Result<std::vector<PlannedImage>> plan_docker_archive(const StagedArchive& staged) {
  const std::string* text = staged.small_file("manifest.json");
  if (text == nullptr) return error(Code::kInvalid, "no manifest.json");
  const nlohmann::json doc = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_array() || doc.empty()) {
    return error(Code::kInvalid, "manifest.json is not a non-empty JSON list");
  }
  std::vector<PlannedImage> plans;
  for (size_t i = 0; i < doc.size(); ++i) {
    const nlohmann::json& item = doc[i];
    const std::string where = "image " + std::to_string(i);
    if (!item.is_object())
      return error(Code::kInvalid, "manifest.json: " + where + " is not an object");
    PlannedImage plan;
    ASSIGN_OR_RETURN(plan.config.archive_path,
                     archive_path(item.value("Config", nlohmann::json()), where + " Config"));
    auto layers = item.find("Layers");
    if (layers == item.end() || !layers->is_array()) {
      return error(Code::kInvalid, "manifest.json: " + where + " has no Layers list");
    }
    for (size_t l = 0; l < layers->size(); ++l) {
      PlannedBlob layer;
      ASSIGN_OR_RETURN(layer.archive_path,
                       archive_path((*layers)[l], where + " layer " + std::to_string(l)));
      plan.layers.push_back(std::move(layer));
    }
    if (auto tags = item.find("RepoTags"); tags != item.end() && tags->is_array()) {
      for (const nlohmann::json& tag : *tags) {
        if (!tag.is_string()) continue;
        ASSIGN_OR_RETURN(Reference ref, parse_reference(tag.get<std::string>()));
        plan.references.push_back(ref.to_string());
      }
    }
    plans.push_back(std::move(plan));
  }
  return plans;
}

}  // namespace k3c::runtime::internal
