// YAML to JSON (see yaml_json.h).
#include "core/yaml_json.h"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstdlib>
#include <string>

#include "core/utf8.h"

namespace k3c {
namespace {

using nlohmann::json;

json scalar_to_json(const YAML::Node& node) {
  const std::string& s = node.Scalar();
  // A quoted scalar (tag "!") is always a string.
  if (node.Tag() == "!") return s;
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  // Integers (with sign) and floats; anything else is a string.
  const char* begin = s.c_str();
  char* end = nullptr;
  errno = 0;
  long long i = std::strtoll(begin, &end, 10);
  if (errno == 0 && end != begin && *end == '\0' && s.find_first_of("xX") == std::string::npos) {
    return i;
  }
  errno = 0;
  double d = std::strtod(begin, &end);
  bool numeric = end != begin && *end == '\0' && errno == 0 &&
                 s.find_first_not_of("0123456789+-.eE") == std::string::npos;
  if (numeric) return d;
  return s;
}

Status not_utf8() {
  return error(Code::kBadRequest, "error converting YAML to JSON: yaml: invalid UTF-8 in the text");
}

Result<json> to_json(const YAML::Node& node, int depth, int max_depth) {
  if (depth > max_depth) {
    return error(Code::kBadRequest, "yaml: exceeded max depth of " + std::to_string(max_depth));
  }
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return json(nullptr);
    case YAML::NodeType::Scalar:
      // Escapes can make bytes that are not UTF-8 (a lone "\ud800"); JSON cannot carry them.
      if (!valid_utf8(node.Scalar())) return not_utf8();
      return scalar_to_json(node);
    case YAML::NodeType::Sequence: {
      json out = json::array();
      for (const auto& child : node) {
        ASSIGN_OR_RETURN(json v, to_json(child, depth + 1, max_depth));
        out.push_back(std::move(v));
      }
      return out;
    }
    case YAML::NodeType::Map: {
      json out = json::object();
      for (const auto& kv : node) {
        if (!kv.first.IsScalar()) {
          return error(Code::kBadRequest, "yaml: only scalar mapping keys are supported");
        }
        if (!valid_utf8(kv.first.Scalar())) return not_utf8();
        ASSIGN_OR_RETURN(json v, to_json(kv.second, depth + 1, max_depth));
        out[kv.first.Scalar()] = std::move(v);
      }
      return out;
    }
  }
  return json(nullptr);
}

// "---" at the start of a line, followed by nothing but blanks or a comment.
bool is_document_separator(std::string_view line) {
  if (line.substr(0, 3) != "---") return false;
  size_t rest = line.find_first_not_of(" \t\r", 3);
  return rest == std::string_view::npos || line[rest] == '#';
}

Status parse_error(const YAML::Exception& e) {
  return error(Code::kBadRequest, "error converting YAML to JSON: yaml: line " +
                                      std::to_string(e.mark.line + 1) + ": " + e.msg);
}

}  // namespace

Result<json> yaml_to_json(std::string_view text, int max_depth) {
  // Upstream's YAML reader refuses bytes that are not UTF-8 before parsing (found by
  // test/fuzz: they reached the JSON, whose serialization threw, answering 500).
  if (!valid_utf8(text)) return not_utf8();
  try {
    YAML::Node node = YAML::Load(std::string(text));
    return to_json(node, 0, max_depth);
  } catch (const YAML::Exception& e) {
    return parse_error(e);
  }
}

Result<std::vector<json>> yaml_documents_to_json(std::string_view text, int max_depth) {
  if (!valid_utf8(text)) return not_utf8();
  // The stream is split at "---" lines here, as upstream's YAML reader does, and each
  // document parsed alone: yaml-cpp's own LoadAll loops forever on some inputs (a lone ","
  // hung it; found by test/fuzz).
  std::vector<json> docs;
  size_t doc_start = 0;
  size_t line_start = 0;
  while (line_start <= text.size()) {
    size_t eol = text.find('\n', line_start);
    size_t line_end = eol == std::string_view::npos ? text.size() : eol;
    std::string_view line = text.substr(line_start, line_end - line_start);
    bool last = eol == std::string_view::npos;
    if (is_document_separator(line) || last) {
      size_t doc_end = is_document_separator(line) ? line_start : text.size();
      ASSIGN_OR_RETURN(json doc,
                       yaml_to_json(text.substr(doc_start, doc_end - doc_start), max_depth));
      if (!doc.is_null()) docs.push_back(std::move(doc));
      doc_start = line_end + (last ? 0 : 1);
    }
    if (last) break;
    line_start = eol + 1;
  }
  return docs;
}

}  // namespace k3c
