// metadata.managedFields bookkeeping, as upstream's field manager keeps it: every write
// records which manager set which fields. Non-apply writes (create, update, patch) are
// "Update" operations that take over the fields they change; server-side apply ("Apply")
// merges a manager's configuration, removes the fields that manager dropped from it and no
// one else owns, and refuses to change fields other managers own (409) unless forced.
//
// The field sets come from api/managed_fields.h. Paths upstream never records (apiVersion,
// kind, metadata.name/uid/resourceVersion/...) are left out; writes through the main
// resource never own status fields, writes through the status subresource own only those.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "api/managed_fields.h"
#include "api/schema.h"
#include "core/status.h"

namespace k3c::api {

// Who writes: the manager name, the apiVersion of the request, "status" or "", and the
// time to record (RFC 3339).
struct Writer {
  std::string manager;
  std::string api_version;
  std::string subresource;
  std::string time;
};

// The managedFields of `new_object` after an Update by `writer` changed `old_object` into it
// (old_object null or {} for a create). Entries are read from old_object; stored entries that
// cannot be read are dropped.
Result<nlohmann::json> managed_fields_after_update(const nlohmann::json& old_object,
                                                   const nlohmann::json& new_object,
                                                   const MessageType* type, const Writer& writer);

struct ApplyConflict {
  std::string manager;  // as upstream prints it: "\"kubectl\" using apps/v1"
  FieldPath path;
};
struct Applied {
  nlohmann::json object;  // with metadata.managedFields; unset when there are conflicts
  std::vector<ApplyConflict> conflicts;
};

// Server-side apply of `config` by `writer` to `live` (null: the object does not exist).
// kBadRequest for a config carrying managedFields or an unusable list item.
Result<Applied> apply_configuration(const nlohmann::json& live, const nlohmann::json& config,
                                    const MessageType* type, const Writer& writer, bool force);

// Upstream's message for refused applies: "Apply failed with 1 conflict: conflict with ...".
std::string conflict_message(const std::vector<ApplyConflict>& conflicts);

}  // namespace k3c::api
