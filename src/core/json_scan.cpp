// The JSON scan (see json_scan.h).
#include "core/json_scan.h"

namespace k3c::json_scan {

void Cursor::skip_space() {
  while (pos_ < text_.size() &&
         (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
    ++pos_;
}

size_t Cursor::next_offset() {
  skip_space();
  return pos_;
}

bool Cursor::consume(char c) {
  skip_space();
  if (pos_ >= text_.size() || text_[pos_] != c) return false;
  ++pos_;
  return true;
}

std::optional<std::string_view> Cursor::plain_string() {
  skip_space();
  if (pos_ >= text_.size() || text_[pos_] != '"') return std::nullopt;
  size_t end = text_.find_first_of("\"\\", pos_ + 1);
  if (end == std::string_view::npos || text_[end] != '"') return std::nullopt;
  std::string_view s = text_.substr(pos_ + 1, end - pos_ - 1);
  pos_ = end + 1;
  return s;
}

bool Cursor::skip_string() {
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

std::optional<std::string_view> Cursor::value() {
  skip_space();
  if (pos_ >= text_.size()) return std::nullopt;
  const size_t start = pos_;
  char c = text_[pos_];
  if (c == '"') {
    if (!skip_string()) return std::nullopt;
    return text_.substr(start, pos_ - start);
  }
  if (c != '{' && c != '[') {
    size_t end = text_.find_first_of(",}] \t\r\n", pos_);
    if (end == pos_ || end == std::string_view::npos) return std::nullopt;
    pos_ = end;
    return text_.substr(start, pos_ - start);
  }
  int depth = 0;
  while (pos_ < text_.size()) {
    c = text_[pos_];
    if (c == '"') {
      if (!skip_string()) return std::nullopt;
      continue;
    }
    ++pos_;
    if (c == '{' || c == '[') ++depth;
    if ((c == '}' || c == ']') && --depth == 0) return text_.substr(start, pos_ - start);
  }
  return std::nullopt;
}

std::optional<std::string_view> member(std::string_view object, std::string_view key) {
  Cursor c(object);
  std::optional<std::string_view> found;
  bool ok = walk_object(c, [&](std::string_view k) -> std::optional<bool> {
    if (k != key) return c.skip_value() ? std::optional(false) : std::nullopt;
    found = c.value();
    if (!found) return std::nullopt;
    return true;
  });
  return ok ? found : std::nullopt;
}

}  // namespace k3c::json_scan
