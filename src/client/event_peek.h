// Reads the type and the object's metadata.resourceVersion of one watch event line
// ({"type":"MODIFIED","object":{..."metadata":{..."resourceVersion":"42"...}...}}) without
// building a tree: a scan that skips every other value. Informers use it to find an object
// another informer of the process already parsed (shared_objects.h) before parsing it again.
//
// Pure function, any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace k3c::client {

struct EventPeek {
  std::string_view type;              // "ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR"
  std::string_view resource_version;  // of the event's object
};

// Both fields as views into `line`; nullopt when the line is not a JSON object with both as
// plain strings (escaped strings included: the caller then parses the line in full).
std::optional<EventPeek> peek_event(std::string_view line);

// The line without the event object's metadata.managedFields member, cut out of the text
// before a parse (informers drop it anyway, and it is about half of a pod's JSON); nullopt
// when the object has none or the scan fails (then the line is parsed as it is).
std::optional<std::string> without_managed_fields(std::string_view line);

}  // namespace k3c::client
