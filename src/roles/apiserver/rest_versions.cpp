// Conversion at the REST edges for kinds stored in one version and served in several (see
// rest.h and api/version_conversion.h).
#include "api/version_conversion.h"
#include "roles/apiserver/object_codec.h"
#include "roles/apiserver/rest.h"

namespace k3c::apiserver {

using nlohmann::json;

bool Rest::converts(const Call& c) {
  return !c.custom && !api::storage_version(c.resource.group, c.resource.kind).empty();
}

Result<json> Rest::in_call_version(const Call& c, json stored) const {
  if (!converts(c)) return stored;
  RETURN_IF_ERROR(api::convert_to_version(stored, c.resource.group_version()));
  return stored;
}

bool Rest::stored_as_sent(const Call& c) {
  return !converts(c) ||
         c.resource.group_version() == api::storage_version(c.resource.group, c.resource.kind);
}

Result<std::string> Rest::stored_bytes(const Call& c, const json& object) const {
  if (stored_as_sent(c)) return object.dump();
  json stored = object;
  RETURN_IF_ERROR(
      api::convert_to_version(stored, api::storage_version(c.resource.group, c.resource.kind)));
  return stored.dump();
}

std::string Rest::written_answer(const Call& c, const std::string& key, json object,
                                 std::string_view stored, int64_t revision) const {
  if (stored_as_sent(c)) {
    if (auto text = with_resource_version(stored, revision)) return std::move(*text);
  }
  return make_cached(key, std::move(object), revision).json.text();
}

std::string Rest::answer_bytes(const Call& c, const PackedText& cached) const {
  std::string text = cached.text();
  if (!converts(c) || !api::may_need_conversion(text, c.resource.group_version())) return text;
  json object = json::parse(text, nullptr, false);
  if (!api::convert_to_version(object, c.resource.group_version()).is_ok()) return text;
  return object.dump();
}

}  // namespace k3c::apiserver
