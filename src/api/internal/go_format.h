// Go's fmt rendering of decoded JSON values (map[string]interface{}, []interface{}, float64,
// ...): upstream's patch and apply errors quote values with %v and types with %T or
// reflect, and clients match on those texts.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace k3c::api::internal {

// fmt's %v: `map[a:1 b:[x y]]`, `[1 2]`, `80`, `1e+06`, `true`, `<nil>`, strings bare.
std::string go_value(const nlohmann::json& value);
// reflect.TypeOf(value).String(): `map[string]interface {}`, `[]interface {}`, `string`,
// `float64`, `bool`, `<nil>`.
std::string go_type(const nlohmann::json& value);

}  // namespace k3c::api::internal
