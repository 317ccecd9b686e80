// Stored objects to cache entries: the store holds each object's JSON without its
// resourceVersion (that is the store revision, known only after the write); the codec sets
// it, serializes once, and extracts what lists and watches filter on: namespace, name, uid,
// labels and the selectable fields of the object's kind.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "roles/apiserver/watch_cache.h"
#include "store/store.h"

namespace k3c::apiserver {

// The field-selector paths a kind supports besides metadata.name and metadata.namespace,
// as upstream (pods: spec.nodeName, status.phase, ...; events: involvedObject.*, ...).
const std::vector<std::string>& selectable_fields(std::string_view group, std::string_view kind);
// Whether `field` may be used in a field selector for the kind.
bool is_selectable(std::string_view group, std::string_view kind, std::string_view field);

// Reads a stored value, sets metadata.resourceVersion to kv.mod_revision, and builds the
// cache entry. The value is scanned, not parsed, when it is what our encoder writes; the
// result is the same as parse_stored's (the same JSON bytes and fields).
Result<CachedObject> decode_stored(const store::KeyValue& kv);
// decode_stored through a full parse and dump (what it falls back to).
Result<CachedObject> parse_stored(const store::KeyValue& kv);
// The same from an object already parsed (the apiserver's write path has it in hand).
CachedObject make_cached(const std::string& key, nlohmann::json object, int64_t revision);

// A serialized object (as our encoder writes it) with metadata.resourceVersion set to
// `revision`, by a scan of the text: the bytes make_cached would give, without a parse or a
// dump. nullopt when the text is not an object with a metadata object.
std::optional<std::string> with_resource_version(std::string_view text, int64_t revision);

// The value of a dotted path ("spec.nodeName") as a selector string: strings as they are,
// booleans and numbers in their JSON form, absent as "".
std::string field_value(const nlohmann::json& object, std::string_view path);

}  // namespace k3c::apiserver
