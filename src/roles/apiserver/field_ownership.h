// The API server's side of metadata.managedFields (api/field_manager.h): who a request's
// writer is (?fieldManager= or, as upstream, the product name of the User-Agent), and the
// Update entry every create, update and non-apply patch records.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>

#include "api/field_manager.h"
#include "api/schema.h"
#include "roles/apiserver/content.h"
#include "roles/apiserver/rest.h"

namespace k3c::apiserver {

// The writer of a call; 400 for a fieldManager upstream refuses (too long, unprintable).
ApiResult<api::Writer> writer_of(const Call& call, std::chrono::system_clock::time_point now);

// Sets metadata.managedFields of `updated` for the Update that turns `old` (null on create)
// into it.
std::optional<ApiError> record_update(const Call& call, const api::SchemaSet& schemas,
                                      const nlohmann::json& old, nlohmann::json& updated,
                                      std::chrono::system_clock::time_point now);

}  // namespace k3c::apiserver
