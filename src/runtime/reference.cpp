// Image reference parsing and normalisation (see reference.h). The grammar is
// docker/distribution's: path components are [a-z0-9]+ joined by '.', '_', '__' or '-'s;
// tags are [A-Za-z0-9_][A-Za-z0-9_.-]{0,127}.
#include "runtime/reference.h"

#include <cctype>

#include "runtime/digest.h"

namespace k3c::runtime {
namespace {

bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

bool valid_component(std::string_view c) {
  if (c.empty() || !lower_alnum(c.front()) || !lower_alnum(c.back())) return false;
  for (size_t i = 0; i < c.size(); ++i) {
    if (lower_alnum(c[i])) continue;
    if (c[i] == '.' || c[i] == '-') {
      if (c[i] == '.' && !lower_alnum(c[i + 1])) return false;
      continue;
    }
    if (c[i] == '_') {
      // '_' or '__', never three.
      if (c[i + 1] == '_' && (i + 2 >= c.size() || !lower_alnum(c[i + 2]))) return false;
      if (c[i + 1] == '_') ++i;
      continue;
    }
    return false;
  }
  return true;
}

bool valid_tag(std::string_view tag) {
  if (tag.empty() || tag.size() > 128) return false;
  for (size_t i = 0; i < tag.size(); ++i) {
    const char c = tag[i];
    const bool word = std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    if (!word && (i == 0 || (c != '.' && c != '-'))) return false;
  }
  return true;
}

bool valid_domain(std::string_view domain) {
  if (domain.empty()) return false;
  for (char c : domain) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != ':' &&
        c != '[' && c != ']') {
      return false;
    }
  }
  return true;
}

bool is_hex64(std::string_view s) {
  if (s.size() != 64) return false;
  for (char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

Status invalid(std::string_view text, std::string_view why) {
  return error(Code::kInvalid,
               "invalid image reference \"" + std::string(text) + "\": " + std::string(why));
}

}  // namespace

std::string Reference::to_string() const {
  std::string text = repository();
  if (!tag.empty()) text += ":" + tag;
  if (!digest.empty()) text += "@" + digest;
  return text;
}

Result<Reference> parse_reference(std::string_view text) {
  if (text.empty()) return invalid(text, "empty");
  if (text.size() > 255 + 128 + 72) return invalid(text, "too long");
  Reference ref;
  std::string_view rest = text;
  if (const size_t at = rest.find('@'); at != std::string_view::npos) {
    ref.digest = std::string(rest.substr(at + 1));
    if (!check_digest(ref.digest, "digest").is_ok()) return invalid(text, "bad digest");
    rest = rest.substr(0, at);
  }
  // A ':' after the last '/' starts the tag; one before it belongs to a registry port.
  const size_t slash = rest.rfind('/');
  if (const size_t colon = rest.rfind(':');
      colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash)) {
    ref.tag = std::string(rest.substr(colon + 1));
    if (!valid_tag(ref.tag)) return invalid(text, "bad tag \"" + ref.tag + "\"");
    rest = rest.substr(0, colon);
  }
  if (is_hex64(rest)) return invalid(text, "cannot specify 64-byte hexadecimal strings");
  // The first component is a registry when it looks like a host: has '.' or ':' or is
  // "localhost"; otherwise the image lives on Docker Hub.
  const size_t first = rest.find('/');
  std::string_view head = rest.substr(0, first);
  if (first != std::string_view::npos &&
      (head.find_first_of(".:") != std::string_view::npos || head == "localhost")) {
    if (!valid_domain(head)) return invalid(text, "bad registry \"" + std::string(head) + "\"");
    ref.domain = std::string(head);
    ref.path = std::string(rest.substr(first + 1));
  } else {
    ref.domain = "docker.io";
    ref.path = std::string(rest);
  }
  if (ref.domain == "index.docker.io") ref.domain = "docker.io";
  if (ref.domain == "docker.io" && ref.path.find('/') == std::string::npos) {
    ref.path = "library/" + ref.path;
  }
  std::string_view path = ref.path;
  for (size_t start = 0;;) {
    const size_t end = path.find('/', start);
    if (!valid_component(path.substr(start, end - start))) {
      return invalid(text, "repository name must be lowercase letters, digits and separators");
    }
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  if (ref.repository().size() > 255) return invalid(text, "repository name over 255 characters");
  if (ref.tag.empty() && ref.digest.empty()) ref.tag = "latest";
  return ref;
}

}  // namespace k3c::runtime
