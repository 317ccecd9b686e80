// Writers and Update entries of metadata.managedFields (see field_ownership.h).
#include "roles/apiserver/field_ownership.h"

#include "core/ids.h"
#include "roles/apiserver/api_errors.h"

namespace k3c::apiserver {

// Upstream's limit on manager names (metav1 validation.FieldManagerMaxLength).
constexpr size_t kMaxFieldManagerLength = 128;

ApiResult<api::Writer> writer_of(const Call& c, std::chrono::system_clock::time_point now) {
  api::Writer w;
  w.manager = std::string(c.request.param("fieldManager").value_or(""));
  if (w.manager.size() > kMaxFieldManagerLength) {
    return invalid(
        "meta.k8s.io", "PatchOptions", "",
        {{"FieldValueTooLong", "Too long: may not be more than 128 bytes", "fieldManager"}});
  }
  for (unsigned char ch : w.manager) {
    if (ch < 0x20 || ch == 0x7f) {
      return invalid("meta.k8s.io", "PatchOptions", "",
                     {{"FieldValueInvalid",
                       "Invalid value: " + nlohmann::json(w.manager).dump() +
                           ": invalid character in field manager",
                       "fieldManager"}});
    }
  }
  if (w.manager.empty()) {
    // Upstream names unnamed writers after their User-Agent's product ("kubectl/v1.32...").
    std::string agent(c.request.header("user-agent").value_or(""));
    w.manager = agent.substr(0, std::min(agent.find('/'), kMaxFieldManagerLength));
  }
  w.api_version = c.resource.group_version();
  w.subresource = c.info.subresource;
  w.time = rfc3339(now);
  return w;
}

std::optional<ApiError> record_update(const Call& c, const api::SchemaSet& schemas,
                                      const nlohmann::json& old, nlohmann::json& updated,
                                      std::chrono::system_clock::time_point now) {
  auto writer = writer_of(c, now);
  if (!writer.ok()) return writer.error();
  auto fields = api::managed_fields_after_update(old, updated, schemas.kind(c.resource.gvk()),
                                                 writer.value());
  if (!fields.is_ok()) return from_status(fields.status());
  if (fields->empty()) {
    updated["metadata"].erase("managedFields");
  } else {
    updated["metadata"]["managedFields"] = std::move(fields).value();
  }
  return std::nullopt;
}

}  // namespace k3c::apiserver
