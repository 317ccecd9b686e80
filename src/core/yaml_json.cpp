// YAML to JSON (see yaml_json.h).
#include "core/yaml_json.h"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstdlib>
#include <string>

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

Result<json> to_json(const YAML::Node& node, int depth, int max_depth) {
  if (depth > max_depth) {
    return error(Code::kBadRequest, "yaml: exceeded max depth of " + std::to_string(max_depth));
  }
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return json(nullptr);
    case YAML::NodeType::Scalar:
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
        ASSIGN_OR_RETURN(json v, to_json(kv.second, depth + 1, max_depth));
        out[kv.first.Scalar()] = std::move(v);
      }
      return out;
    }
  }
  return json(nullptr);
}

Status parse_error(const YAML::Exception& e) {
  return error(Code::kBadRequest, "error converting YAML to JSON: yaml: line " +
                                      std::to_string(e.mark.line + 1) + ": " + e.msg);
}

}  // namespace

Result<json> yaml_to_json(std::string_view text, int max_depth) {
  try {
    YAML::Node node = YAML::Load(std::string(text));
    return to_json(node, 0, max_depth);
  } catch (const YAML::Exception& e) {
    return parse_error(e);
  }
}

Result<std::vector<json>> yaml_documents_to_json(std::string_view text, int max_depth) {
  try {
    std::vector<json> docs;
    for (const auto& node : YAML::LoadAll(std::string(text))) {
      ASSIGN_OR_RETURN(json doc, to_json(node, 0, max_depth));
      if (!doc.is_null()) docs.push_back(std::move(doc));
    }
    return docs;
  } catch (const YAML::Exception& e) {
    return parse_error(e);
  }
}

}  // namespace k3c
