// Kubernetes protobuf bodies -> the JSON Kubernetes would produce for the same object,
// driven by the SchemaSet (no code per kind). A body is the magic "k8s\0" followed by a
// runtime.Unknown envelope {1 typeMeta{1 apiVersion, 2 kind}, 2 raw, 3 contentEncoding,
// 4 contentType}; `raw` is the object's message. Zero values that proto2 carries for plain
// Go fields become "absent", as JSON's omitempty would have it; see doc/schemas.md.
//
// Pure functions over immutable inputs: any thread may call them.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "api/registry.h"
#include "api/schema.h"
#include "core/status.h"

namespace k3c::api {

inline constexpr std::string_view kProtobufMagic{"k8s\0", 4};
// Deepest nesting of messages accepted; deeper input is refused, never recursed into.
inline constexpr int kMaxProtobufDepth = 100;

struct ProtobufObject {
  nlohmann::json object;  // with apiVersion and kind from the envelope
  GroupVersionKind gvk;
  // Fields whose numbers the schema does not know were skipped: how many, and the first
  // few as "core.v1.Container#99".
  size_t unknown_fields = 0;
  std::vector<std::string> unknown_examples;
};

// Decodes a whole body. kBadRequest for malformed input (bad magic, truncated or overlong
// data, a field with the wrong wire type, nesting deeper than kMaxProtobufDepth, invalid
// UTF-8 in a string); kUnsupportedMediaType for a served kind that has no schema yet.
Result<ProtobufObject> decode_protobuf(std::string_view body, const SchemaSet& schemas,
                                       const ResourceRegistry& registry);
// The same, keeping only the object.
Result<nlohmann::json> decode_protobuf_object(std::string_view body, const SchemaSet& schemas,
                                              const ResourceRegistry& registry);

// Transcodes one message of `type` (no envelope): the core of the above, for tests.
Result<ProtobufObject> decode_protobuf_message(std::string_view message, const MessageType& type);

}  // namespace k3c::api
