// v1.Node JSON -> NodeModel: the parts scheduling reads.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "roles/scheduler/model.h"
#include "roles/scheduler/parse_common.h"

namespace k3c::scheduler {

using json = nlohmann::json;

std::vector<Taint> taints_from_json(const json& list) {
  std::vector<Taint> out;
  if (!list.is_array()) return out;
  for (const json& t : list) {
    out.push_back(
        {api::text(t, "key"), api::text(t, "value"), taint_effect_from(api::text(t, "effect"))});
  }
  return out;
}

static std::vector<NodeImage> images_from_json(const json& list) {
  std::vector<NodeImage> out;
  if (!list.is_array()) return out;
  for (const json& image : list) {
    const json& size = api::member(image, "sizeBytes");
    int64_t bytes = size.is_number_integer() ? size.get<int64_t>() : 0;
    for (const std::string& name : string_list(api::member(image, "names"))) {
      out.push_back({normalized_image_name(name), bytes});
    }
  }
  std::sort(out.begin(), out.end(),
            [](const NodeImage& a, const NodeImage& b) { return a.name < b.name; });
  out.erase(std::unique(out.begin(), out.end(),
                        [](const NodeImage& a, const NodeImage& b) { return a.name == b.name; }),
            out.end());
  return out;
}

static bool ready_condition(const json& conditions) {
  if (!conditions.is_array()) return false;
  for (const json& c : conditions) {
    if (api::text(c, "type") == "Ready") return api::text(c, "status") == "True";
  }
  return false;
}

Result<NodePtr> node_from_json(const json& node) {
  if (!node.is_object()) return error(Code::kInvalid, "node: not an object");
  const json& meta = api::member(node, "metadata");
  auto model = std::make_shared<NodeModel>();
  model->name = api::text(meta, "name");
  if (model->name.empty()) return error(Code::kInvalid, "node: metadata.name is required");
  model->labels = labels_from_json(api::member(meta, "labels"));
  const json& spec = api::member(node, "spec");
  model->taints = taints_from_json(api::member(spec, "taints"));
  model->unschedulable = api::member(spec, "unschedulable") == true;
  const json& status = api::member(node, "status");
  model->allocatable = resources_from_list(api::member(status, "allocatable"));
  model->ready = ready_condition(api::member(status, "conditions"));
  model->images = images_from_json(api::member(status, "images"));
  return NodePtr(std::move(model));
}

}  // namespace k3c::scheduler
