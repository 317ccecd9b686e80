// Signal names as image configs spell STOPSIGNAL ("SIGTERM", "TERM", "15", "SIGRTMIN+3").
#pragma once

#include <optional>
#include <string_view>

namespace k3c::runtime {

// The signal number, nullopt for "" or a name this table does not know.
std::optional<int> signal_number(std::string_view name);

}  // namespace k3c::runtime
