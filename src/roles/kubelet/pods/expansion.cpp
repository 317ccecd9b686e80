// $(VAR) expansion (see expansion.h).
#include "roles/kubelet/pods/expansion.h"

#include <map>
#include <set>

namespace k3c::kubelet {

using nlohmann::json;

std::string expand_vars(std::string_view input, const VarLookup& lookup) {
  std::string out;
  out.reserve(input.size());
  size_t i = 0;
  while (i < input.size()) {
    const char c = input[i];
    if (c != '$' || i + 1 == input.size()) {  // a trailing `$` is kept
      out += c;
      ++i;
      continue;
    }
    const char next = input[i + 1];
    if (next == '$') {  // escaped operator
      out += '$';
      i += 2;
      continue;
    }
    if (next == '(') {
      const size_t close = input.find(')', i + 2);
      if (close == std::string_view::npos) {
        // An unclosed reference is kept, and scanning goes on after the `$(` (a later `$(`
        // in it is looked at again).
        out += "$(";
        i += 2;
        continue;
      }
      const std::string_view name = input.substr(i + 2, close - i - 2);
      if (auto value = lookup(name)) {
        out += *value;
      } else {
        out.append(input.substr(i, close - i + 1));  // unknown: kept as written
      }
      i = close + 1;
      continue;
    }
    out += '$';  // `$X`: not an expression
    ++i;
  }
  return out;
}

Result<json> expand_sub_path_exprs(const json& container, const std::vector<std::string>& env) {
  json out = container;
  if (!out.contains("volumeMounts") || !out["volumeMounts"].is_array()) return out;
  std::map<std::string, std::string, std::less<>> values;
  for (const std::string& e : env) {
    const size_t eq = e.find('=');
    if (eq != std::string::npos) values[e.substr(0, eq)] = e.substr(eq + 1);
  }
  for (json& vm : out["volumeMounts"]) {
    if (!vm.is_object() || !vm.contains("subPathExpr")) continue;
    std::set<std::string> missing;
    const std::string expanded =
        expand_vars(vm.value("subPathExpr", ""), [&](std::string_view name) -> std::optional<std::string> {
          auto it = values.find(name);
          if (it == values.end() || it->second.empty()) {
            missing.insert(std::string(name));
            return std::string();
          }
          return it->second;
        });
    if (!missing.empty()) {
      std::string list;
      for (const std::string& m : missing) list += (list.empty() ? "" : ", ") + m;
      return error(Code::kInvalid, "missing value for " + list);
    }
    vm["subPath"] = expanded;
    vm.erase("subPathExpr");
  }
  return out;
}

}  // namespace k3c::kubelet
