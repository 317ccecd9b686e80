// The JSON spelling of SeccompProfile, shared by the runtime's records and the shim's state
// files (an unknown name reads as Unconfined).
#pragma once

#include <nlohmann/json.hpp>

#include "runtime/runtime_service.h"

namespace k3c::runtime {

NLOHMANN_JSON_SERIALIZE_ENUM(SeccompProfile, {{SeccompProfile::kUnconfined, "Unconfined"},
                                              {SeccompProfile::kRuntimeDefault, "RuntimeDefault"},
                                              {SeccompProfile::kLocalhost, "Localhost"}})

}  // namespace k3c::runtime
