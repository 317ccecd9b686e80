// $(VAR) references in container command, args and env values, expanded as upstream's kubelet
// does: `$(NAME)` becomes NAME's value when NAME is known and stays as written when it is not,
// `$$` is an escaped `$`, any other `$` (also `${X}`, `$X`, an unclosed `$(`) stays literally.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace k3c::kubelet {

// The value of a variable, or nullopt when it is not defined.
using VarLookup = std::function<std::optional<std::string>(std::string_view name)>;

std::string expand_vars(std::string_view input, const VarLookup& lookup);

}  // namespace k3c::kubelet
