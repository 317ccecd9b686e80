// The watch event scan (see event_peek.h): a cursor over the line that reads object keys
// and skips values by their brackets and quotes.
#include "client/event_peek.h"

namespace k3c::client {
namespace {

class Cursor {
 public:
  explicit Cursor(std::string_view text) : text_(text) {}

  bool consume(char c) {
    skip_space();
    if (pos_ >= text_.size() || text_[pos_] != c) return false;
    ++pos_;
    return true;
  }
  // A string without escapes; nullopt for anything else (escapes included).
  std::optional<std::string_view> plain_string() {
    skip_space();
    if (pos_ >= text_.size() || text_[pos_] != '"') return std::nullopt;
    size_t end = text_.find_first_of("\"\\", pos_ + 1);
    if (end == std::string_view::npos || text_[end] != '"') return std::nullopt;
    std::string_view s = text_.substr(pos_ + 1, end - pos_ - 1);
    pos_ = end + 1;
    return s;
  }
  // Skips one value of any kind; false when the text ends or is malformed.
  bool skip_value() {
    skip_space();
    if (pos_ >= text_.size()) return false;
    char c = text_[pos_];
    if (c == '"') return skip_string();
    if (c != '{' && c != '[') {
      size_t end = text_.find_first_of(",}] \t\r\n", pos_);
      if (end == pos_ || end == std::string_view::npos) return false;
      pos_ = end;
      return true;
    }
    int depth = 0;
    while (pos_ < text_.size()) {
      c = text_[pos_];
      if (c == '"') {
        if (!skip_string()) return false;
        continue;
      }
      ++pos_;
      if (c == '{' || c == '[') ++depth;
      if ((c == '}' || c == ']') && --depth == 0) return true;
    }
    return false;
  }

 private:
  void skip_space() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }
  bool skip_string() {
    for (size_t i = pos_ + 1; i < text_.size(); ++i) {
      if (text_[i] == '\\') {
        ++i;
      } else if (text_[i] == '"') {
        pos_ = i + 1;
        return true;
      }
    }
    return false;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

// Walks the members of the object at the cursor, calling `member(key)` with the cursor before
// each value; `member` reads the value (returning true to stop the walk) or leaves it to be
// skipped (returning false). False when the object is malformed or ends before a stop.
template <typename Member>
bool walk_object(Cursor& c, Member member) {
  if (!c.consume('{')) return false;
  if (c.consume('}')) return false;
  do {
    auto key = c.plain_string();
    if (!key || !c.consume(':')) return false;
    std::optional<bool> stop = member(*key);
    if (!stop) return false;  // the member's value was malformed
    if (*stop) return true;
  } while (c.consume(','));
  return false;
}

}  // namespace

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

}  // namespace k3c::client
