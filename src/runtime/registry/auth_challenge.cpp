// Parsing WWW-Authenticate and token answers (see auth_challenge.h).
#include "runtime/registry/auth_challenge.h"

#include <cctype>
#include <nlohmann/json.hpp>

namespace k3c::runtime::registry {
namespace {

bool is_token_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) ||
         std::string_view("!#$%&'*+-.^_`|~/=").find(c) != std::string_view::npos;
}

std::string lower(std::string_view s) {
  std::string out;
  for (char c : s) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
  }
  bool at_end() {
    skip_space();
    return pos_ >= text_.size();
  }
  bool take(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  // A token without '=' (scheme names and parameter names).
  std::string name() {
    skip_space();
    const size_t start = pos_;
    while (pos_ < text_.size() && is_token_char(text_[pos_]) && text_[pos_] != '=') ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }
  // A quoted string (with \ escapes) or a token; false when malformed.
  bool value(std::string& out) {
    skip_space();
    out.clear();
    if (pos_ < text_.size() && text_[pos_] == '"') {
      for (++pos_; pos_ < text_.size(); ++pos_) {
        if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) {
          out += text_[++pos_];
        } else if (text_[pos_] == '"') {
          ++pos_;
          return true;
        } else {
          out += text_[pos_];
        }
      }
      return false;  // unclosed quote
    }
    // Unquoted: a token, leniently up to the next comma or space (some servers leave a URL
    // unquoted).
    while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != ' ' && text_[pos_] != '\t') {
      out += text_[pos_++];
    }
    return true;
  }
  size_t mark() const { return pos_; }
  void reset(size_t at) { pos_ = at; }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

std::vector<Challenge> parse_challenges(std::string_view header) {
  std::vector<Challenge> out;
  Scanner s(header);
  while (!s.at_end()) {
    if (s.take(',')) continue;
    Challenge c;
    c.scheme = lower(s.name());
    if (c.scheme.empty()) return out;
    // Parameters: name=value separated by commas, until a name not followed by '=' (the
    // next challenge's scheme).
    for (;;) {
      const size_t before = s.mark();
      while (s.take(',')) {
      }
      std::string key = s.name();
      if (key.empty() || !s.take('=')) {
        s.reset(before);
        break;
      }
      std::string value;
      if (!s.value(value)) {
        out.push_back(std::move(c));
        return out;
      }
      c.params[lower(key)] = std::move(value);
    }
    out.push_back(std::move(c));
    if (!s.at_end() && !s.take(',')) {
      // Another scheme right after (no comma) is allowed; anything unparseable ends it.
      const size_t before = s.mark();
      if (s.name().empty()) return out;
      s.reset(before);
    }
  }
  return out;
}

Result<std::string> parse_token_response(std::string_view body) {
  const nlohmann::json doc = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return error(Code::kInvalid, "the token answer is not a JSON object");
  for (const char* key : {"token", "access_token"}) {
    auto it = doc.find(key);
    if (it != doc.end() && it->is_string() && !it->get<std::string>().empty()) {
      return it->get<std::string>();
    }
  }
  return error(Code::kInvalid, "the token answer has neither token nor access_token");
}

}  // namespace k3c::runtime::registry
