// Go's fmt rendering of decoded JSON values (see go_format.h).
#include "api/internal/go_format.h"

#include "core/go_format.h"

namespace k3c::api::internal {

std::string go_value(const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::null:
      return "<nil>";
    case nlohmann::json::value_t::boolean:
      return v.get<bool>() ? "true" : "false";
    case nlohmann::json::value_t::string:
      return v.get<std::string>();
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned:
    case nlohmann::json::value_t::number_float:
      return go_float(v.get<double>());
    case nlohmann::json::value_t::array: {
      std::string out = "[";
      for (size_t i = 0; i < v.size(); ++i) out += (i ? " " : "") + go_value(v[i]);
      return out + "]";
    }
    case nlohmann::json::value_t::object: {
      // nlohmann keeps keys sorted bytewise, as fmt prints map keys.
      std::string out = "map[";
      bool first = true;
      for (auto& [k, child] : v.items()) {
        out += (first ? "" : " ") + k + ":" + go_value(child);
        first = false;
      }
      return out + "]";
    }
    default:
      return v.dump();
  }
}

std::string go_type(const nlohmann::json& v) {
  if (v.is_object()) return "map[string]interface {}";
  if (v.is_array()) return "[]interface {}";
  if (v.is_string()) return "string";
  if (v.is_number()) return "float64";
  if (v.is_boolean()) return "bool";
  return "<nil>";
}

}  // namespace k3c::api::internal
