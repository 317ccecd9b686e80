// Label and field selector parsing and matching (see selector.h).
#include "core/selector.h"

#include <algorithm>
#include <cctype>

#include "core/text.h"

namespace k3c {
namespace {

// Splits on commas that are not inside parentheses.
Result<std::vector<std::string_view>> split_terms(std::string_view text) {
  std::vector<std::string_view> terms;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || (text[i] == ',' && depth == 0)) {
      terms.push_back(trim_space(text.substr(start, i - start)));
      start = i + 1;
    } else if (text[i] == '(') {
      ++depth;
    } else if (text[i] == ')') {
      if (--depth < 0)
        return error(Code::kBadRequest, "unable to parse requirement: unmatched ')'");
    }
  }
  if (depth != 0) return error(Code::kBadRequest, "unable to parse requirement: unmatched '('");
  return terms;
}

bool valid_key_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ||
         c == '/';
}

Status check_key(std::string_view key, std::string_view term) {
  if (key.empty()) {
    return error(Code::kBadRequest, "unable to parse requirement: found '" + std::string(term) +
                                        "', expected: identifier");
  }
  if (key.size() > 317 || !std::all_of(key.begin(), key.end(), valid_key_char)) {
    return error(Code::kBadRequest,
                 "unable to parse requirement: invalid label key \"" + std::string(key) + "\"");
  }
  return Status::ok();
}

Status check_value(std::string_view value) {
  if (value.size() > 63) {
    return error(Code::kBadRequest, "unable to parse requirement: invalid label value: \"" +
                                        std::string(value) +
                                        "\": must be no more than 63 characters");
  }
  for (char c : value) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) {
      return error(Code::kBadRequest, "unable to parse requirement: invalid label value: \"" +
                                          std::string(value) + "\"");
    }
  }
  return Status::ok();
}

Result<LabelSelector::Requirement> parse_set_term(std::string_view term, size_t op_pos,
                                                  bool notin) {
  LabelSelector::Requirement r;
  r.key = std::string(trim_space(term.substr(0, op_pos)));
  RETURN_IF_ERROR(check_key(r.key, term));
  r.op = notin ? LabelSelector::Op::kNotIn : LabelSelector::Op::kIn;
  auto open = term.find('(', op_pos);
  auto close = term.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open ||
      !trim_space(term.substr(close + 1)).empty()) {
    return error(Code::kBadRequest,
                 "unable to parse requirement: found '" + std::string(term) + "', expected: '('");
  }
  std::string_view inside = term.substr(open + 1, close - open - 1);
  size_t start = 0;
  for (size_t i = 0; i <= inside.size(); ++i) {
    if (i == inside.size() || inside[i] == ',') {
      std::string_view v = trim_space(inside.substr(start, i - start));
      RETURN_IF_ERROR(check_value(v));
      r.values.emplace_back(v);
      start = i + 1;
    }
  }
  return r;
}

// Finds `word` as a whole space-separated word in `term`.
size_t find_word(std::string_view term, std::string_view word) {
  for (size_t pos = term.find(word); pos != std::string_view::npos;
       pos = term.find(word, pos + 1)) {
    bool before = pos > 0 && std::isspace(static_cast<unsigned char>(term[pos - 1]));
    size_t end = pos + word.size();
    bool after = end < term.size() &&
                 (std::isspace(static_cast<unsigned char>(term[end])) || term[end] == '(');
    if (before && after) return pos;
  }
  return std::string_view::npos;
}

Result<LabelSelector::Requirement> parse_label_term(std::string_view term) {
  if (size_t p = find_word(term, "notin"); p != std::string_view::npos) {
    return parse_set_term(term, p, true);
  }
  if (size_t p = find_word(term, "in"); p != std::string_view::npos) {
    return parse_set_term(term, p, false);
  }
  LabelSelector::Requirement r;
  size_t op;
  if ((op = term.find("!=")) != std::string_view::npos) {
    r.op = LabelSelector::Op::kNotEquals;
    r.key = std::string(trim_space(term.substr(0, op)));
    r.values.emplace_back(trim_space(term.substr(op + 2)));
  } else if ((op = term.find("==")) != std::string_view::npos) {
    r.op = LabelSelector::Op::kEquals;
    r.key = std::string(trim_space(term.substr(0, op)));
    r.values.emplace_back(trim_space(term.substr(op + 2)));
  } else if ((op = term.find('=')) != std::string_view::npos) {
    r.op = LabelSelector::Op::kEquals;
    r.key = std::string(trim_space(term.substr(0, op)));
    r.values.emplace_back(trim_space(term.substr(op + 1)));
  } else if (!term.empty() && term.front() == '!') {
    r.op = LabelSelector::Op::kDoesNotExist;
    r.key = std::string(trim_space(term.substr(1)));
  } else {
    r.op = LabelSelector::Op::kExists;
    r.key = std::string(term);
  }
  RETURN_IF_ERROR(check_key(r.key, term));
  for (const auto& v : r.values) RETURN_IF_ERROR(check_value(v));
  return r;
}

}  // namespace

Result<LabelSelector> LabelSelector::parse(std::string_view text) {
  LabelSelector s;
  if (trim_space(text).empty()) return s;
  ASSIGN_OR_RETURN(auto terms, split_terms(text));
  for (auto term : terms) {
    ASSIGN_OR_RETURN(auto r, parse_label_term(term));
    s.requirements_.push_back(std::move(r));
  }
  return s;
}

LabelSelector LabelSelector::from_requirements(std::vector<Requirement> requirements) {
  LabelSelector s;
  s.requirements_ = std::move(requirements);
  return s;
}

bool LabelSelector::matches(const Labels& labels) const {
  return matches_with([&](const std::string& key) -> const std::string* {
    auto it = labels.find(key);
    return it == labels.end() ? nullptr : &it->second;
  });
}

Result<FieldSelector> FieldSelector::parse(std::string_view text) {
  FieldSelector s;
  if (trim_space(text).empty()) return s;
  ASSIGN_OR_RETURN(auto terms, split_terms(text));
  for (auto term : terms) {
    Requirement r;
    size_t op;
    size_t value_at;
    if ((op = term.find("!=")) != std::string_view::npos) {
      r.equals = false;
      value_at = op + 2;
    } else if ((op = term.find("==")) != std::string_view::npos) {
      r.equals = true;
      value_at = op + 2;
    } else if ((op = term.find('=')) != std::string_view::npos) {
      r.equals = true;
      value_at = op + 1;
    } else {
      return error(Code::kBadRequest, "invalid selector: '" + std::string(text) +
                                          "'; can't understand '" + std::string(term) + "'");
    }
    r.field = std::string(trim_space(term.substr(0, op)));
    r.value = std::string(trim_space(term.substr(value_at)));
    if (r.field.empty()) {
      return error(Code::kBadRequest, "invalid selector: '" + std::string(text) + "'");
    }
    s.requirements_.push_back(std::move(r));
  }
  return s;
}

bool FieldSelector::matches(const Labels& fields) const {
  return matches_with([&](const std::string& field) -> const std::string* {
    auto it = fields.find(field);
    return it == fields.end() ? nullptr : &it->second;
  });
}

const std::string* FieldSelector::required_value(std::string_view field) const {
  for (const auto& r : requirements_) {
    if (r.equals && r.field == field) return &r.value;
  }
  return nullptr;
}

}  // namespace k3c
