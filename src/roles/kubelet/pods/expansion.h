// $(VAR) references in container command, args and env values, expanded as upstream's kubelet
// does: `$(NAME)` becomes NAME's value when NAME is known and stays as written when it is not,
// `$$` is an escaped `$`, any other `$` (also `${X}`, `$X`, an unclosed `$(`) stays literally.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace k3c::kubelet {

// The value of a variable, or nullopt when it is not defined.
using VarLookup = std::function<std::optional<std::string>(std::string_view name)>;

std::string expand_vars(std::string_view input, const VarLookup& lookup);

// The container with each volumeMount's subPathExpr expanded from its environment ("NAME=
// value" entries) into subPath, as upstream's kubelet: a variable that is unset or empty is
// an error naming every such variable ("missing value for A, B").
Result<nlohmann::json> expand_sub_path_exprs(const nlohmann::json& container,
                                             const std::vector<std::string>& env);

}  // namespace k3c::kubelet
