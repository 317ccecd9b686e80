// Go-compatible regular expressions over RE2 (see regex.h).
#include "core/regex.h"

#include <re2/re2.h>

#include <vector>

namespace k3c {
namespace {

bool is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// The group a template reference names: its number, or -1 when it names no group.
int group_of(const re2::RE2& re, std::string_view name) {
  int number = 0;
  for (char c : name) {
    if (c < '0' || c > '9' || number >= 100000000) {
      number = -1;
      break;
    }
    number = number * 10 + (c - '0');
  }
  if (name.size() > 1 && name[0] == '0') number = -1;  // no leading zeros, as Go
  if (number >= 0) return number <= re.NumberOfCapturingGroups() ? number : -1;
  const auto& names = re.NamedCapturingGroups();
  auto it = names.find(std::string(name));
  return it == names.end() ? -1 : it->second;
}

// Go's Regexp.Expand of one match. groups[i].data() == nullptr: group i did not take part.
void expand(const re2::RE2& re, std::string_view tmpl, const std::vector<re2::StringPiece>& groups,
            std::string& out) {
  while (!tmpl.empty()) {
    const size_t dollar = tmpl.find('$');
    if (dollar == std::string_view::npos) break;
    out.append(tmpl.substr(0, dollar));
    tmpl.remove_prefix(dollar + 1);
    if (!tmpl.empty() && tmpl[0] == '$') {
      out += '$';
      tmpl.remove_prefix(1);
      continue;
    }
    const bool brace = !tmpl.empty() && tmpl[0] == '{';
    std::string_view rest = brace ? tmpl.substr(1) : tmpl;
    size_t n = 0;
    while (n < rest.size() && is_name_char(rest[n])) ++n;
    if (n == 0 || (brace && (n >= rest.size() || rest[n] != '}'))) {
      out += '$';  // malformed: the '$' is plain text
      continue;
    }
    const int group = group_of(re, rest.substr(0, n));
    if (group >= 0 && groups[group].data() != nullptr) {
      out.append(groups[group].data(), groups[group].size());
    }
    tmpl = rest.substr(n + (brace ? 1 : 0));
  }
  out.append(tmpl);
}

}  // namespace

Result<Regex> Regex::compile(std::string_view pattern) {
  re2::RE2::Options options;
  options.set_log_errors(false);
  auto re = std::make_shared<const re2::RE2>(re2::StringPiece(pattern.data(), pattern.size()),
                                             options);
  if (!re->ok()) {
    return error(Code::kInvalid, "error parsing regexp: " + re->error());
  }
  return Regex(std::string(pattern), std::move(re));
}

bool Regex::search(std::string_view text) const {
  return re2::RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *re_);
}

std::string Regex::replace_all(std::string_view text, std::string_view replacement) const {
  const re2::StringPiece input(text.data(), text.size());
  std::vector<re2::StringPiece> groups(re_->NumberOfCapturingGroups() + 1);
  std::string out;
  size_t last_end = 0;
  size_t search = 0;
  bool matched_before = false;
  while (search <= text.size() &&
         re_->Match(input, search, text.size(), re2::RE2::UNANCHORED, groups.data(),
                    static_cast<int>(groups.size()))) {
    const size_t begin = groups[0].data() - text.data();
    const size_t end = begin + groups[0].size();
    out.append(text.substr(last_end, begin - last_end));
    // An empty match right where the previous one ended is not replaced (Go's rule).
    if (end > last_end || !matched_before) expand(*re_, replacement, groups, out);
    matched_before = true;
    last_end = end;
    // Go's loop steps one UTF-8 character past an empty match.
    size_t width = 1;
    if (search < text.size()) {
      const auto lead = static_cast<unsigned char>(text[search]);
      const size_t want = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
      while (width < want && search + width < text.size() &&
             (static_cast<unsigned char>(text[search + width]) & 0xC0) == 0x80) {
        ++width;  // a broken sequence steps one byte, as Go's decoder does
      }
      if (width < want) width = 1;
    }
    search = search + width > end ? search + width : end;
  }
  out.append(text.substr(last_end));
  return out;
}

}  // namespace k3c
