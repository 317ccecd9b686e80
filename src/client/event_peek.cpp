// The watch event scan (see event_peek.h), with core/json_scan.h's cursor.
#include "client/event_peek.h"

#include "core/json_scan.h"

namespace k3c::client {

using json_scan::Cursor;
using json_scan::walk_object;

std::optional<EventPeek> peek_event(std::string_view line) {
  Cursor c(line);
  EventPeek peek;
  bool have_type = false, have_rv = false;
  auto metadata_member = [&](std::string_view key) -> std::optional<bool> {
    if (key != "resourceVersion") return c.skip_value() ? std::optional(false) : std::nullopt;
    auto rv = c.plain_string();
    if (!rv) return std::nullopt;
    peek.resource_version = *rv;
    have_rv = true;
    return true;
  };
  auto object_member = [&](std::string_view key) -> std::optional<bool> {
    if (key != "metadata") return c.skip_value() ? std::optional(false) : std::nullopt;
    if (!walk_object(c, metadata_member)) return std::nullopt;
    return true;
  };
  auto event_member = [&](std::string_view key) -> std::optional<bool> {
    if (key == "type") {
      auto type = c.plain_string();
      if (!type) return std::nullopt;
      peek.type = *type;
      have_type = true;
    } else if (key == "object") {
      // The walk stops inside the object: the type must have come first (as servers write it).
      if (!have_type || !walk_object(c, object_member)) return std::nullopt;
    } else if (!c.skip_value()) {
      return std::nullopt;
    }
    return have_type && have_rv;
  };
  if (!walk_object(c, event_member) || !have_type || !have_rv) return std::nullopt;
  return peek;
}

std::optional<std::string> without_managed_fields(std::string_view line) {
  Cursor c(line);
  size_t cut_from = 0, cut_to = 0;
  auto metadata_member = [&](std::string_view key, size_t& after_previous, bool& first) {
    if (!c.skip_value()) return std::optional<bool>();
    if (key != "managedFields") {
      after_previous = c.offset();
      first = false;
      return std::optional(false);
    }
    // `,"managedFields":[...]` after another member; `"managedFields":[...],` when first.
    cut_from = after_previous;
    if (first) c.consume(',');
    cut_to = c.offset();
    return std::optional(true);
  };
  auto object_member = [&](std::string_view key) -> std::optional<bool> {
    if (key != "metadata") return c.skip_value() ? std::optional(false) : std::nullopt;
    size_t after_previous = c.next_offset() + 1;  // just after '{', then after each value
    bool first = true;
    if (!walk_object(c,
                     [&](std::string_view k) { return metadata_member(k, after_previous, first); }))
      return std::nullopt;
    return true;
  };
  auto event_member = [&](std::string_view key) -> std::optional<bool> {
    if (key != "object") return c.skip_value() ? std::optional(false) : std::nullopt;
    if (!walk_object(c, object_member)) return std::nullopt;
    return true;
  };
  if (!walk_object(c, event_member) || cut_to <= cut_from) return std::nullopt;
  std::string out;
  out.reserve(line.size() - (cut_to - cut_from));
  out.append(line.substr(0, cut_from));
  out.append(line.substr(cut_to));
  return out;
}

}  // namespace k3c::client
