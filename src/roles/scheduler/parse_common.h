// Internal helpers of the Node and Pod parsers (see parse_common.cpp).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "api/json_fields.h"
#include "roles/scheduler/model.h"

namespace k3c::scheduler {

std::vector<std::string> string_list(const nlohmann::json& list);
NodeSelectorTerm node_selector_term_from_json(const nlohmann::json& term);
NodeSelector node_selector_from_json(const nlohmann::json& selector);
TaintEffect taint_effect_from(const std::string& effect);

}  // namespace k3c::scheduler
