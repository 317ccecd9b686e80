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
    out.push_back({string_field(t, "key"), string_field(t, "value"),
                   taint_effect_from(string_field(t, "effect"))});
  }
  return out;
}

static std::vector<NodeImage> images_from_json(const json& list) {
  std::vector<NodeImage> out;
  if (!list.is_array()) return out;
  for (const json& image : list) {
    const json& size = field(image, "sizeBytes");
    int64_t bytes = size.is_number_integer() ? size.get<int64_t>() : 0;
    for (const std::string& name : string_list(field(image, "names"))) {
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
    if (string_field(c, "type") == "Ready") return string_field(c, "status") == "True";
  }
  return false;
}

Result<NodePtr> node_from_json(const json& node) {
  if (!node.is_object()) return error(Code::kInvalid, "node: not an object");
  const json& meta = field(node, "metadata");
  auto model = std::make_shared<NodeModel>();
  model->name = string_field(meta, "name");
  if (model->name.empty()) return error(Code::kInvalid, "node: metadata.name is required");
  model->labels = labels_from_json(field(meta, "labels"));
  const json& spec = field(node, "spec");
  model->taints = taints_from_json(field(spec, "taints"));
  model->unschedulable = field(spec, "unschedulable") == true;
  const json& status = field(node, "status");
  model->allocatable = resources_from_list(field(status, "allocatable"));
  model->ready = ready_condition(field(status, "conditions"));
  model->images = images_from_json(field(status, "images"));
  return NodePtr(std::move(model));
}

}  // namespace k3c::scheduler
