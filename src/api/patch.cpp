// JSON patch and merge patch (see patch.h).
#include "api/patch.h"

#include <string>

namespace k3c::api {
namespace {

using nlohmann::json;

// nlohmann's json::patch throws on every failure; its messages are precise enough to pass
// on. RFC 6902 "test" failures and missing paths become the apiserver's wording.
Status patch_error(const std::string& what) {
  return error(Code::kInvalid,
               "the server rejected our request due to an error in our request: " + what);
}

}  // namespace

namespace {

// min(depth of value, limit + 1). The recursion stops at the limit: bodies are parsed before
// their depth is checked, and counting all the way down a body of a few hundred thousand '['
// overflowed the stack (found by test/fuzz).
int depth_up_to(const json& value, int limit) {
  if (!value.is_structured()) return 0;
  if (limit == 0) return 1;
  int deepest = 0;
  for (const auto& child : value) {
    deepest = std::max(deepest, depth_up_to(child, limit - 1));
    if (deepest >= limit) break;
  }
  return deepest + 1;
}

}  // namespace

int json_depth(const json& value) { return depth_up_to(value, kMaxJsonDepth + 1); }

Result<json> apply_json_patch(const json& document, const json& patch) {
  if (!patch.is_array()) {
    return error(Code::kBadRequest,
                 "json: cannot unmarshal object into Go value of type jsonpatch.Patch");
  }
  if (patch.size() > kMaxJsonPatchOperations) {
    return error(Code::kRequestEntityTooLarge,
                 "The allowed number of operations in a JSON patch is " +
                     std::to_string(kMaxJsonPatchOperations) + ", received " +
                     std::to_string(patch.size()));
  }
  for (const auto& op : patch) {
    if (!op.is_object() || !op.contains("op") || !op["op"].is_string() || !op.contains("path") ||
        !op["path"].is_string()) {
      return error(Code::kBadRequest, "invalid JSON patch operation: " + op.dump());
    }
  }
  try {
    return document.patch(patch);
  } catch (const json::out_of_range& e) {
    return patch_error(e.what());
  } catch (const json::parse_error& e) {
    return error(Code::kBadRequest, std::string("invalid JSON patch: ") + e.what());
  } catch (const json::exception& e) {
    return patch_error(e.what());
  }
}

json apply_merge_patch(const json& document, const json& patch) {
  if (!patch.is_object()) return patch;
  json out = document.is_object() ? document : json::object();
  for (auto it = patch.begin(); it != patch.end(); ++it) {
    if (it.value().is_null()) {
      out.erase(it.key());
    } else {
      auto existing = out.find(it.key());
      out[it.key()] = apply_merge_patch(existing == out.end() ? json() : *existing, it.value());
    }
  }
  return out;
}

}  // namespace k3c::api
