#include "roles/controllers/volume/binder_math.h"

#include <algorithm>
#include <optional>

#include "api/json_fields.h"
#include "api/object_selectors.h"
#include "api/quantity.h"
#include "roles/controllers/common/objects.h"

namespace k3c::controllers {
namespace {

using nlohmann::json;

std::vector<std::string> strings(const json& list) {
  std::vector<std::string> out;
  for (const json& v : list) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

std::string volume_mode(const json& object) {
  std::string mode = api::text(api::member(object, "spec"), "volumeMode");
  return mode.empty() ? "Filesystem" : mode;
}

std::optional<api::Quantity> quantity(const json& value) {
  if (value.is_string()) return api::Quantity::parse(value.get<std::string>());
  if (value.is_number_integer()) return api::Quantity::from_value(value.get<int64_t>());
  return std::nullopt;
}

}  // namespace

std::string storage_class_of(const json& object) {
  const std::string beta = api::text(api::member(api::member(object, "metadata"), "annotations"),
                                     "volume.beta.kubernetes.io/storage-class");
  return beta.empty() ? api::text(api::member(object, "spec"), "storageClassName") : beta;
}

bool volume_bound_to(const json& volume, const json& claim) {
  const json& ref = api::member(api::member(volume, "spec"), "claimRef");
  if (!ref.is_object()) return false;
  if (api::text(ref, "namespace") != namespace_of(claim) ||
      api::text(ref, "name") != name_of(claim)) {
    return false;
  }
  const std::string uid = api::text(ref, "uid");
  return uid.empty() || uid == uid_of(claim);
}

const json* matching_volume(const json& claim, const std::vector<const json*>& volumes) {
  const json& spec = api::member(claim, "spec");
  const std::vector<std::string> wanted_modes = strings(api::member(spec, "accessModes"));
  const auto requested =
      quantity(api::member(api::member(api::member(spec, "resources"), "requests"), "storage"));
  const json& selector_json = api::member(spec, "selector");
  const auto selector = api::label_selector_of(selector_json);
  const std::string wanted_class = storage_class_of(claim);
  const json* smallest = nullptr;
  std::optional<api::Quantity> smallest_size;
  for (const json* volume : volumes) {
    if (being_deleted(*volume)) continue;
    const json& vspec = api::member(*volume, "spec");
    const std::vector<std::string> modes = strings(api::member(vspec, "accessModes"));
    const bool modes_fit = std::all_of(wanted_modes.begin(), wanted_modes.end(), [&](auto& m) {
      return std::find(modes.begin(), modes.end(), m) != modes.end();
    });
    if (!modes_fit || volume_mode(*volume) != volume_mode(claim)) continue;
    if (volume_bound_to(*volume, claim)) return volume;  // pre-bound by the user
    if (api::text(api::member(*volume, "status"), "phase") != "Available") continue;
    if (api::member(vspec, "claimRef").is_object()) continue;  // pre-bound to another claim
    if (selector_json.is_object() && !selector_json.empty() &&
        !(selector && selector->matches(api::labels_of(*volume)))) {
      continue;
    }
    if (storage_class_of(*volume) != wanted_class) continue;
    const auto size = quantity(api::member(api::member(vspec, "capacity"), "storage"));
    if (!size || (requested && *size < *requested)) continue;
    if (!smallest || *size < *smallest_size) {
      smallest = volume;
      smallest_size = size;
    }
  }
  return smallest;
}

}  // namespace k3c::controllers
