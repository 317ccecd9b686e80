// Strategic merge patch (see strategic_merge.h). The structure follows upstream's server-side
// application (mergeMap / mergeSlice with MergeParallelList and IgnoreUnmatchedNulls), so
// that element order and error texts come out as a real API server's do.
#include "api/strategic_merge.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>

#include "api/internal/go_format.h"

namespace k3c::api {
namespace {

using internal::go_type;
using internal::go_value;
using nlohmann::json;

constexpr std::string_view kDirective = "$patch";
constexpr std::string_view kRetainKeys = "$retainKeys";
constexpr std::string_view kSetElementOrder = "$setElementOrder";
constexpr std::string_view kDeleteFromPrimitiveList = "$deleteFromPrimitiveList";

// ---- upstream's error texts (mergepatch/errors.go and patch.go) ----

Status bad_request(std::string message) { return error(Code::kBadRequest, std::move(message)); }
Status bad_arg_type(std::string_view expected, const json& actual) {
  return bad_request("expected a " + std::string(expected) + ", but received a " + go_type(actual));
}
Status no_merge_key(const json& m, const std::string& key) {
  return bad_request("map: " + go_value(m) + " does not contain declared merge key: " + key);
}
Status bad_patch_type(const json& type, const json& m) {
  std::string t = type.is_string() ? type.get<std::string>()
                                   : "%!s(" + go_type(type) + "=" + go_value(type) + ")";
  return bad_request("unknown patch type: " + t + " in map: " + go_value(m));
}
const char* const kBadPrimitiveList = "invalid patch format of primitive list";
const char* const kBadRetainKeys = "invalid patch format of retainKeys";
const char* const kBadSetElementOrder = "invalid patch format of setElementOrder list";

// ---- the schema at a point of the document ----

// How the patch treats one field: its value type, strategy and merge key.
struct PatchMeta {
  const FieldType* type = nullptr;  // nullptr: no schema below this point
  std::string strategy;             // "merge", "replace" or "" (retainKeys split off)
  std::string merge_key;
};

// The metadata of `key` inside an object of type `t` (a message or a map[string]X).
Result<PatchMeta> lookup(const FieldType* t, std::string_view key) {
  if (t == nullptr) return PatchMeta{};
  if (t->kind == FieldType::Kind::kMap) return PatchMeta{t->element.get(), "", ""};
  if (t->kind != FieldType::Kind::kMessage || t->message == nullptr) return PatchMeta{};
  const Field* f = (t->message)->json_field(key);
  if (f == nullptr) return PatchMeta{};
  PatchMeta meta{&f->type, "", f->patch_merge_key};
  std::vector<std::string> strategies;
  for (size_t start = 0; start <= f->patch_strategy.size() && !f->patch_strategy.empty();) {
    size_t comma = f->patch_strategy.find(',', start);
    if (comma == std::string::npos) comma = f->patch_strategy.size();
    strategies.push_back(f->patch_strategy.substr(start, comma - start));
    start = comma + 1;
  }
  std::erase(strategies, std::string("retainKeys"));
  if (strategies.size() > 1) {
    return bad_request("unexpected patch strategy: " + go_value(json(f->patch_strategy)));
  }
  if (!strategies.empty()) meta.strategy = strategies.front();
  return meta;
}

const FieldType* element_of(const FieldType* t) {
  return t != nullptr && t->kind == FieldType::Kind::kList ? t->element.get() : nullptr;
}

// ---- small helpers ----

// The field a "$prefix/field" directive key names.
Result<std::string> extract_key(const std::string& key, std::string_view prefix) {
  auto slash = key.find('/');
  if (slash == std::string::npos || std::string_view(key).substr(0, slash) != prefix) {
    return bad_request(prefix == kDeleteFromPrimitiveList ? kBadPrimitiveList
                                                          : kBadSetElementOrder);
  }
  return key.substr(slash + 1);
}

// Go's reflect kinds of decoded JSON: values of different kinds replace each other.
enum class GoKind { kNil, kMap, kSlice, kString, kNumber, kBool };
GoKind kind_of(const json& v) {
  if (v.is_object()) return GoKind::kMap;
  if (v.is_array()) return GoKind::kSlice;
  if (v.is_string()) return GoKind::kString;
  if (v.is_number()) return GoKind::kNumber;
  if (v.is_boolean()) return GoKind::kBool;
  return GoKind::kNil;
}

// The one element kind of the lists; lists of lists and mixed lists are refused.
Result<GoKind> element_kind(const json& a, const json& b) {
  std::optional<GoKind> kind;
  for (const json* list : {&a, &b}) {
    for (const json& v : *list) {
      GoKind k = kind_of(v);
      if (!kind) {
        if (k == GoKind::kSlice) return error(Code::kInvalid, "lists of lists are not supported");
        kind = k;
      } else if (*kind != k) {
        return bad_request("list element types are not identical: " +
                           go_value(json::array({a, b})));
      }
    }
  }
  if (!kind) return bad_request("no elements in any of the given slices");
  return *kind;
}

void discard_nulls(json& v) {
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end();) {
      if (it->is_null()) {
        it = v.erase(it);
      } else {
        discard_nulls(*it);
        ++it;
      }
    }
  } else if (v.is_array()) {
    for (json& e : v) discard_nulls(e);
  }
}

// Drops objects carrying `$patch` (upstream's removeDirectives); false when `v` itself is one.
bool remove_directives(json& v) {
  if (v.is_object()) {
    if (v.contains(kDirective)) return false;
    for (auto it = v.begin(); it != v.end();) {
      if (remove_directives(*it)) {
        ++it;
      } else {
        it = v.erase(it);
      }
    }
  } else if (v.is_array()) {
    json kept = json::array();
    for (json& e : v) {
      if (remove_directives(e)) kept.push_back(std::move(e));
    }
    v = std::move(kept);
  }
  return true;
}

// Directive keys left in new content (a new list element carrying `$setElementOrder/...`):
// upstream's typed decoding drops them as unknown fields; they never reach storage here.
void strip_directive_keys(json& v) {
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end();) {
      const std::string& k = it.key();
      if (k == kDirective || k == kRetainKeys ||
          std::string_view(k).starts_with(kSetElementOrder) ||
          std::string_view(k).starts_with(kDeleteFromPrimitiveList)) {
        it = v.erase(it);
      } else {
        strip_directive_keys(*it);
        ++it;
      }
    }
  } else if (v.is_array()) {
    for (json& e : v) strip_directive_keys(e);
  }
}

// The value an element is identified by: its merge key for maps, itself otherwise.
json identity(const json& v, const std::string& merge_key, GoKind kind) {
  if (kind != GoKind::kMap) return v;
  if (!v.is_object()) return nullptr;
  auto it = v.find(merge_key);
  return it == v.end() ? json() : *it;
}

int index_in(const json& list, const json& v, const std::string& merge_key, GoKind kind) {
  json id = identity(v, merge_key, kind);
  for (size_t i = 0; i < list.size(); ++i) {
    if (identity(list[i], merge_key, kind) == id) return static_cast<int>(i);
  }
  return -1;
}

// The first object in `list` whose `key` equals `value`.
Result<int> find_by_key(const json& list, const std::string& key, const json& value) {
  for (size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_object())
      return bad_request("value for key " + std::to_string(i) + " is not a map");
    auto it = list[i].find(key);
    if (it != list[i].end() && *it == value) return static_cast<int>(i);
  }
  return -1;
}

// ---- element order (upstream's normalizeElementOrder) ----

Status validate_merge_keys(const std::string& key, const json& list) {
  for (const json& item : list) {
    if (!item.is_object()) return bad_arg_type("map[string]interface {}", item);
    if (!item.contains(key)) return no_merge_key(item, key);
  }
  return Status::ok();
}

bool is_delete_item(const json& v) {
  auto d = v.find(kDirective);
  return d != v.end() && *d == "delete";
}

// Sorts `to_sort` by the positions in `order`, keeping items absent from it where they are;
// `$patch: delete` items go last.
Result<json> sort_by_order(json to_sort, const json& order, const std::string& key, GoKind kind) {
  json deletes = json::array();
  if (kind == GoKind::kMap) {
    RETURN_IF_ERROR(validate_merge_keys(key, to_sort));
    RETURN_IF_ERROR(validate_merge_keys(key, order));
    json keep = json::array();
    for (json& v : to_sort) (is_delete_item(v) ? deletes : keep).push_back(std::move(v));
    to_sort = std::move(keep);
  }
  std::vector<std::pair<int, json>> items;
  for (json& v : to_sort) items.emplace_back(index_in(order, v, key, kind), std::move(v));
  std::stable_sort(items.begin(), items.end(), [](const auto& a, const auto& b) {
    return a.first >= 0 && b.first >= 0 && a.first < b.first;
  });
  json out = json::array();
  for (auto& [_, v] : items) out.push_back(std::move(v));
  for (json& v : deletes) out.push_back(std::move(v));
  return out;
}

// Interleaves server-only items (`left`) into the patch's items (`right`), each keeping its
// own order, placing a server item before a patch item when the live list had it first.
json merge_sorted(const json& left, const json& right, const json& server_order,
                  const std::string& key, GoKind kind) {
  json out = json::array();
  size_t i = 0, j = 0;
  while (i < left.size() || j < right.size()) {
    if (i >= left.size()) {
      out.push_back(right[j++]);
    } else if (j >= right.size()) {
      out.push_back(left[i++]);
    } else {
      int li = index_in(server_order, left[i], key, kind);
      int ri = index_in(server_order, right[j], key, kind);
      if (li >= 0 && ri >= 0 && li < ri) {
        out.push_back(left[i++]);
      } else {
        out.push_back(right[j++]);
      }
    }
  }
  return out;
}

// Splits `merged` into the items present in `by` and the server-only rest.
Result<std::pair<json, json>> partition(const json& merged, const json& by, const std::string& key,
                                        GoKind kind) {
  json in = json::array(), out = json::array();
  for (const json& v : merged) {
    bool found;
    if (key.empty()) {
      found = std::find(by.begin(), by.end(), v) != by.end();
    } else {
      if (!v.is_object()) return bad_arg_type("map[string]interface {}", v);
      auto id = v.find(key);
      if (id == v.end()) return no_merge_key(v, key);
      ASSIGN_OR_RETURN(int at, find_by_key(by, key, *id));
      found = at >= 0;
    }
    (found ? in : out).push_back(v);
  }
  (void)kind;
  return std::make_pair(std::move(in), std::move(out));
}

Result<json> normalize_order(const json& merged, const json& patch_order, const json& server_order,
                             const std::string& key, GoKind kind) {
  ASSIGN_OR_RETURN(auto parts, partition(merged, patch_order, key, kind));
  ASSIGN_OR_RETURN(json patch_items, sort_by_order(std::move(parts.first), patch_order, key, kind));
  ASSIGN_OR_RETURN(json server_items,
                   sort_by_order(std::move(parts.second), server_order, key, kind));
  return merge_sorted(server_items, patch_items, server_order, key, kind);
}

// ---- merging ----

Result<json> merge_map(json original, json patch, const FieldType* schema);

// upstream's deduplicateScalars: a duplicate is overwritten by the last element.
json deduplicate(json s) {
  size_t length = s.size();
  for (size_t i = 0; i + 1 < length; ++i) {
    for (size_t j = i + 1; j < length; ++j) {
      if (s[i] == s[j]) {
        s[j] = s[length - 1];
        --length;
        --j;
      }
    }
  }
  json out = json::array();
  for (size_t i = 0; i < length; ++i) out.push_back(s[i]);
  return out;
}

// `$patch: delete` elements remove the matching entries; `$patch: replace` makes the patch's
// other elements the whole list. Returns the new original and the patch without directives.
Result<std::pair<json, json>> apply_list_directives(json original, const json& patch,
                                                    const std::string& key) {
  json rest = json::array();
  bool replace = false;
  for (const json& v : patch) {
    auto d = v.find(kDirective);
    if (d == v.end()) {
      rest.push_back(v);
    } else if (*d == "delete") {
      auto id = v.find(key);
      if (id == v.end()) return no_merge_key(v, key);
      for (;;) {
        ASSIGN_OR_RETURN(int at, find_by_key(original, key, *id));
        if (at < 0) break;
        original.erase(static_cast<size_t>(at));
      }
    } else if (*d == "replace") {
      replace = true;
    } else if (*d == "merge") {
      return bad_request("merging lists cannot yet be specified in the patch");
    } else {
      return bad_patch_type(*d, v);
    }
  }
  if (replace) return std::make_pair(std::move(rest), json::array());
  return std::make_pair(std::move(original), std::move(rest));
}

Result<json> merge_slice(json original, json patch, const FieldType* element,
                         const std::string& key, bool delete_list) {
  if (original.empty() && patch.empty()) return original;
  ASSIGN_OR_RETURN(GoKind kind, element_kind(original, patch));
  json merged;
  if (kind != GoKind::kMap) {
    if (delete_list) {
      json kept = json::array();
      for (json& v : original) {
        if (std::find(patch.begin(), patch.end(), v) == patch.end()) kept.push_back(std::move(v));
      }
      return kept;
    }
    json both = original;
    for (const json& v : patch) both.push_back(v);
    merged = deduplicate(std::move(both));
  } else {
    if (key.empty()) {
      std::string name = element && element->message ? element->message->name : "";
      return bad_request("cannot merge lists without merge key for " + name);
    }
    ASSIGN_OR_RETURN(auto lists, apply_list_directives(std::move(original), patch, key));
    original = std::move(lists.first);
    patch = std::move(lists.second);
    merged = original;
    for (json& v : patch) {
      auto id = v.find(key);
      if (id == v.end()) return no_merge_key(v, key);
      ASSIGN_OR_RETURN(int at, find_by_key(merged, key, *id));
      if (at >= 0) {
        ASSIGN_OR_RETURN(merged[static_cast<size_t>(at)],
                         merge_map(merged[static_cast<size_t>(at)], v, element));
      } else {
        merged.push_back(v);
      }
    }
  }
  return normalize_order(merged, patch, original, kind == GoKind::kMap ? key : "", kind);
}

// A list field: merged when its strategy says so (or for a deletion list), else replaced.
Result<json> merge_list_field(json original, json patch, const PatchMeta& meta, bool delete_list) {
  if (meta.strategy == "merge" || delete_list) {
    return merge_slice(std::move(original), std::move(patch), element_of(meta.type), meta.merge_key,
                       delete_list);
  }
  return patch;
}

// `$retainKeys`: fields of the original not listed are cleared; the patch may only set
// listed fields.
Status apply_retain_keys(json& original, json& patch) {
  auto it = patch.find(kRetainKeys);
  if (it == patch.end()) return Status::ok();
  json keys = std::move(*it);
  patch.erase(it);
  if (!keys.is_array()) return bad_request(kBadRetainKeys);
  std::set<std::string> retain;
  for (const json& k : keys) {
    if (k.is_string()) retain.insert(k.get<std::string>());
  }
  for (auto& [k, v] : patch.items()) {
    if (v.is_null() || std::string_view(k).starts_with(kDeleteFromPrimitiveList) ||
        std::string_view(k).starts_with(kSetElementOrder))
      continue;
    if (!retain.count(k)) return bad_request(kBadRetainKeys);
  }
  for (auto o = original.begin(); o != original.end();) {
    o = retain.count(o.key()) ? std::next(o) : original.erase(o);
  }
  return Status::ok();
}

// upstream's validatePatchWithSetOrderList: the patch's items appear in the order list, in
// its order.
Status validate_set_order(const json& patch_list, const json& order, const std::string& key) {
  if (order.empty() || patch_list.empty()) return Status::ok();
  json items = json::array();
  for (const json& v : patch_list) {
    if (!key.empty()) {
      if (!v.is_object()) return bad_arg_type("map[string]interface {}", v);
      if (is_delete_item(v)) continue;
    }
    items.push_back(v);
  }
  size_t p = 0, s = 0;
  while (p < items.size() && s < order.size()) {
    if (items[p].is_object() && items[p].contains(kDirective)) {
      ++p;
      continue;
    }
    bool equal;
    if (key.empty()) {
      equal = items[p] == order[s];
    } else {
      if (!order[s].is_object()) return bad_arg_type("map[string]interface {}", order[s]);
      if (!items[p].contains(key)) return no_merge_key(items[p], key);
      if (!order[s].contains(key)) return no_merge_key(order[s], key);
      equal = items[p][key] == order[s][key];
    }
    if (equal) ++p;
    ++s;
  }
  if (p < items.size() && s >= order.size()) {
    return bad_request("The order in patch list:\n" + go_value(patch_list) +
                       "\n doesn't match $setElementOrder list:\n" + go_value(order) + "\n");
  }
  return Status::ok();
}

// `$setElementOrder/<field>`: merges that list now and orders it as the directive says.
Status apply_set_element_order(json& original, json& patch, const FieldType* schema) {
  std::vector<std::string> directives;
  for (auto& [k, _] : patch.items()) {
    if (std::string_view(k).starts_with(kSetElementOrder)) directives.push_back(k);
  }
  for (const std::string& directive : directives) {
    json order = std::move(patch[directive]);
    patch.erase(directive);
    if (!order.is_array()) return bad_arg_type("[]interface {}", order);
    ASSIGN_OR_RETURN(std::string field, extract_key(directive, kSetElementOrder));
    auto o = original.find(field);
    auto p = patch.find(field);
    bool in_original = o != original.end(), in_patch = p != patch.end();
    if (in_original && !o->is_array()) return bad_arg_type("[]interface {}", *o);
    if (in_patch && !p->is_array()) return bad_arg_type("[]interface {}", *p);
    json original_list = in_original ? *o : json::array();
    json patch_list = in_patch ? *p : json::array();
    ASSIGN_OR_RETURN(PatchMeta meta, lookup(schema, field));
    RETURN_IF_ERROR(validate_set_order(patch_list, order, meta.merge_key));
    json merged;
    if (in_original && !in_patch) {
      merged = original_list;
    } else if (!in_original && in_patch) {
      merged = patch_list;
      remove_directives(merged);
    } else if (in_original && in_patch) {
      ASSIGN_OR_RETURN(merged, merge_list_field(original_list, patch_list, meta, false));
    } else {
      continue;
    }
    ASSIGN_OR_RETURN(GoKind kind, element_kind(original_list, patch_list));
    ASSIGN_OR_RETURN(original[field],
                     normalize_order(merged, order, original_list, meta.merge_key, kind));
    patch.erase(field);
  }
  return Status::ok();
}

Result<json> merge_map(json original, json patch, const FieldType* schema) {
  if (auto d = patch.find(kDirective); d != patch.end()) {
    if (*d == "replace") {
      patch.erase(d);
      return patch;
    }
    if (*d == "delete") return json::object();
    return bad_patch_type(*d, patch);
  }
  if (!original.is_object()) original = json::object();
  RETURN_IF_ERROR(apply_retain_keys(original, patch));
  RETURN_IF_ERROR(apply_set_element_order(original, patch, schema));
  for (auto& [patch_key, value] : patch.items()) {
    std::string key = patch_key;
    bool delete_list = std::string_view(key).starts_with(kDeleteFromPrimitiveList);
    if (delete_list) {
      ASSIGN_OR_RETURN(key, extract_key(patch_key, kDeleteFromPrimitiveList));
    }
    if (value.is_null()) {
      original.erase(key);
      continue;
    }
    auto o = original.find(key);
    if (o == original.end() || kind_of(*o) != kind_of(value)) {
      if (delete_list) continue;
      json v = value;
      discard_nulls(v);
      if (remove_directives(v)) {
        original[key] = std::move(v);
      } else {
        original.erase(key);
      }
      continue;
    }
    if (o->is_object()) {
      ASSIGN_OR_RETURN(PatchMeta meta, lookup(schema, key));
      if (meta.strategy == "replace") {
        *o = value;
      } else {
        ASSIGN_OR_RETURN(*o, merge_map(std::move(*o), value, meta.type));
      }
    } else if (o->is_array()) {
      ASSIGN_OR_RETURN(PatchMeta meta, lookup(schema, key));
      ASSIGN_OR_RETURN(*o, merge_list_field(std::move(*o), value, meta, delete_list));
    } else {
      *o = value;
    }
  }
  return original;
}

}  // namespace

Result<json> apply_strategic_merge_patch(const json& original, const json& patch,
                                         const MessageType* type) {
  if (!patch.is_object()) {
    return bad_request("json: cannot unmarshal " +
                       std::string(patch.is_array() ? "array" : "non-object value") +
                       " into Go value of type map[string]interface {}");
  }
  FieldType top;
  top.kind = FieldType::Kind::kMessage;
  top.message = type;
  ASSIGN_OR_RETURN(json out, merge_map(original, patch, type ? &top : nullptr));
  strip_directive_keys(out);
  return out;
}

}  // namespace k3c::api
