// A cursor over JSON text that reads object keys and skips values by their brackets and
// quotes, without building a tree: for the hot paths that need a few members of a large
// document written by a JSON encoder (a watch event's type and resourceVersion, a stored
// object's metadata and selectable fields). It does not validate what it skips: callers
// either trust the text's producer or fall back to a full parse when a scan fails.
//
// Pure; one cursor per thread.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace k3c::json_scan {

class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}

  // Consumes `c` after optional whitespace; false (nothing consumed) when it is not next.
  bool consume(char c);
  // A string without escapes, as a view of its contents; nullopt for anything else (escapes
  // included).
  std::optional<std::string_view> plain_string();
  // Skips one value of any kind and returns its text; nullopt when the text ends or is
  // malformed.
  std::optional<std::string_view> value();
  bool skip_value() { return value().has_value(); }
  // Offset of the next non-space character (where the next key or value begins).
  size_t next_offset();
  size_t offset() const { return pos_; }

 private:
  void skip_space();
  bool skip_string();

  std::string_view text_;
  size_t pos_ = 0;
};

// Walks the members of the object at the cursor, calling `member(key)` with the cursor before
// each value; `member` reads the value (returning true to stop the walk) or skips it
// (returning false), or returns nullopt when the value is malformed. True when the walk was
// stopped, or (with `to_end`) when the object ended well; false otherwise.
template <typename Member>
bool walk_object(Cursor& c, Member member, bool to_end = false) {
  if (!c.consume('{')) return false;
  if (c.consume('}')) return to_end;
  do {
    auto key = c.plain_string();
    if (!key || !c.consume(':')) return false;
    std::optional<bool> stop = member(*key);
    if (!stop) return false;
    if (*stop) return true;
  } while (c.consume(','));
  return to_end && c.consume('}');
}

// The value of member `key` of the object `object` (text of one JSON object); nullopt when
// there is none or the scan fails.
std::optional<std::string_view> member(std::string_view object, std::string_view key);

// What edited_object does with one member.
enum class MemberEdit { kKeep, kReplace, kDrop };

// The object `object` (compact, as a JSON encoder writes it) with its members passed through
// `edit(key, value_text, replacement)`: kept as they are, replaced by the text `edit` put in
// `replacement`, or dropped. What is kept is copied, not parsed, so an edit of a few members
// of a large document costs about a copy of it. The result is compact: the bytes an encoder
// would write for the edited document when `object` was its output. nullopt when the text
// does not scan (a key with escapes included).
template <typename Edit>
std::optional<std::string> edited_object(std::string_view object, Edit edit) {
  Cursor c(object);
  std::string out;
  out.reserve(object.size() + 64);
  out += '{';
  std::string replacement;
  bool first = true;
  const bool ok = walk_object(
      c,
      [&](std::string_view key) -> std::optional<bool> {
        const auto value = c.value();
        if (!value) return std::nullopt;
        replacement.clear();
        const MemberEdit e = edit(key, *value, replacement);
        if (e == MemberEdit::kDrop) return false;
        if (!first) out += ',';
        first = false;
        out += '"';
        out += key;
        out += "\":";
        out += e == MemberEdit::kReplace ? std::string_view(replacement) : *value;
        return false;
      },
      /*to_end=*/true);
  if (!ok || c.next_offset() != object.size()) return std::nullopt;
  out += '}';
  return out;
}

}  // namespace k3c::json_scan
