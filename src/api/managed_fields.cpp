// Field sets, comparison and the apply merge (see managed_fields.h).
#include "api/managed_fields.h"

#include <optional>
#include <utility>

namespace k3c::api {

namespace {

void append_escaped(std::string& out, std::string_view text) {
  for (char c : text) {
    if (c == '\0' || c == '\1') {
      out += '\1';
      out += c == '\0' ? '\1' : '\2';
    } else {
      out += c;
    }
  }
}

}  // namespace

void FieldPath::push_back(std::string_view head, std::string_view tail) {
  const bool plain = head.find_first_of(std::string_view("\0\1", 2)) == std::string_view::npos &&
                     tail.find_first_of(std::string_view("\0\1", 2)) == std::string_view::npos;
  if (plain) {
    encoded_.append(head).append(tail);
  } else {
    append_escaped(encoded_, head);
    append_escaped(encoded_, tail);
  }
  encoded_ += '\0';
}

void FieldPath::pop_back() {
  // The last step is what follows the 0 byte before the final one (none: the only step).
  const size_t previous_end =
      encoded_.size() < 2 ? std::string::npos : encoded_.rfind('\0', encoded_.size() - 2);
  encoded_.resize(previous_end == std::string::npos ? 0 : previous_end + 1);
}

std::vector<std::string> FieldPath::steps() const {
  std::vector<std::string> out;
  each_step([&](std::string_view step) {
    out.emplace_back(step);
    return true;
  });
  return out;
}

std::string FieldPath::unescaped(std::string_view step) {
  std::string out;
  for (size_t i = 0; i < step.size(); ++i) {
    if (step[i] == '\1' && i + 1 < step.size()) {
      out += step[++i] == '\1' ? '\0' : '\1';
    } else {
      out += step[i];
    }
  }
  return out;
}

namespace {

using nlohmann::json;

// What the schema says about one value: its type and, for a field, the field (whose list
// rules describe the value when it is a list).
struct Shape {
  const FieldType* type = nullptr;
  const Field* field = nullptr;
};

Shape child_shape(const Shape& s, std::string_view key) {
  if (s.type == nullptr) return {};
  if (s.type->kind == FieldType::Kind::kMap) return {s.type->element.get(), nullptr};
  if (s.type->kind != FieldType::Kind::kMessage || s.type->message == nullptr) return {};
  const Field* f = (s.type->message)->json_field(key);
  return f ? Shape{&f->type, f} : Shape{};
}

Shape element_shape(const Shape& s) {
  if (s.type == nullptr || s.type->kind != FieldType::Kind::kList) return {};
  return {s.type->element.get(), nullptr};
}

// Scalars and the special types (quantities, times, raw extensions) are leaves.
bool leaf_type(const Shape& s) { return s.type != nullptr && s.type->is_scalar(); }
bool is_message(const Shape& s) {
  return s.type != nullptr && s.type->kind == FieldType::Kind::kMessage;
}

enum class ListKind { kAtomic, kSet, kMap };
struct ListRules {
  ListKind kind = ListKind::kAtomic;
  std::vector<std::string> keys;
};

// listType from the schema; a list with a merge key but no listType is keyed by it, as
// upstream's OpenAPI says for those fields; lists without either are atomic.
ListRules list_rules(const Shape& s) {
  if (s.field == nullptr || s.type == nullptr || s.type->kind != FieldType::Kind::kList) return {};
  const Field& f = *s.field;
  if (f.list_type == "set") return {ListKind::kSet, {}};
  if (f.list_type == "map") return {ListKind::kMap, f.list_map_keys};
  if (f.list_type.empty() && !f.patch_merge_key.empty()) {
    return {ListKind::kMap, {f.patch_merge_key}};
  }
  return {};
}

// The path step naming one item of an associative list.
Result<std::string> item_step(const json& item, const Shape& list, const ListRules& rules) {
  if (rules.kind == ListKind::kSet) return "v:" + item.dump();
  if (!item.is_object()) {
    return error(Code::kBadRequest, "associative list item is not an object: " + item.dump());
  }
  Shape element = element_shape(list);
  json key = json::object();
  for (const std::string& k : rules.keys) {
    auto it = item.find(k);
    if (it != item.end()) {
      key[k] = *it;
      continue;
    }
    const Field* f = is_message(element) ? (element.type->message)->json_field(k) : nullptr;
    if (f == nullptr || f->default_value.is_null()) {
      return error(Code::kBadRequest,
                   "associative list with keys has an element that omits key field \"" + k +
                       "\" (and doesn't have default value)");
    }
    key[k] = f->default_value;
  }
  return "k:" + key.dump();
}

// One more step on a path while the guard lives: the walks below share one path rather than
// copy it at every node (a pod's create walked ~100 nodes, each copying its whole path).
class Step {
 public:
  Step(FieldPath& path, std::string_view head, std::string_view tail = {}) : path_(path) {
    path_.push_back(head, tail);
  }
  ~Step() { path_.pop_back(); }
  Step(const Step&) = delete;
  Step& operator=(const Step&) = delete;

 private:
  FieldPath& path_;
};

bool walk_as_object(const json& v, const Shape& s) { return v.is_object() && !leaf_type(s); }
bool walk_as_list(const json& v, const Shape& s) {
  return v.is_array() && list_rules(s).kind != ListKind::kAtomic;
}

Status collect_fields(const json& v, const Shape& s, FieldPath& path, FieldSet& out) {
  if (walk_as_object(v, s) && !v.empty()) {
    for (auto& [k, child] : v.items()) {
      Step step(path, "f:", k);
      RETURN_IF_ERROR(collect_fields(child, child_shape(s, k), path, out));
    }
  } else if (walk_as_list(v, s) && !v.empty()) {
    ListRules rules = list_rules(s);
    Shape element = element_shape(s);
    for (const json& item : v) {
      ASSIGN_OR_RETURN(std::string item_step_text, item_step(item, s, rules));
      Step item_step_guard(path, item_step_text);
      out.insert(path);
      if (rules.kind != ListKind::kMap) continue;
      for (auto& [k, child] : item.items()) {
        Step step(path, "f:", k);
        RETURN_IF_ERROR(collect_fields(child, child_shape(element, k), path, out));
      }
    }
  } else if (!path.empty()) {
    out.insert(path);
  }
  return Status::ok();
}

// Every node of a value that appeared or disappeared: the value itself (unless it is a
// struct with fields, which upstream never records as a member) and all below it.
Status collect_nodes(const json& v, const Shape& s, FieldPath& path, FieldSet& out) {
  bool struct_with_fields = is_message(s) && v.is_object() && !v.empty();
  if (!path.empty() && !struct_with_fields) out.insert(path);
  if (walk_as_object(v, s)) {
    for (auto& [k, child] : v.items()) {
      Step step(path, "f:", k);
      RETURN_IF_ERROR(collect_nodes(child, child_shape(s, k), path, out));
    }
  } else if (walk_as_list(v, s)) {
    ListRules rules = list_rules(s);
    Shape element = element_shape(s);
    for (const json& item : v) {
      ASSIGN_OR_RETURN(std::string item_step_text, item_step(item, s, rules));
      Step item_step_guard(path, item_step_text);
      out.insert(path);
      if (rules.kind != ListKind::kMap) continue;
      for (auto& [k, child] : item.items()) {
        Step step(path, "f:", k);
        RETURN_IF_ERROR(collect_nodes(child, child_shape(element, k), path, out));
      }
    }
  }
  return Status::ok();
}

// Items of an associative list by their path step, in list order.
Result<std::vector<std::pair<std::string, const json*>>> items_by_step(const json& list,
                                                                       const Shape& s) {
  ListRules rules = list_rules(s);
  std::vector<std::pair<std::string, const json*>> out;
  for (const json& item : list) {
    ASSIGN_OR_RETURN(std::string step, item_step(item, s, rules));
    out.emplace_back(std::move(step), &item);
  }
  return out;
}

const json* find_step(const std::vector<std::pair<std::string, const json*>>& items,
                      const std::string& step) {
  for (const auto& [s, item] : items) {
    if (s == step) return item;
  }
  return nullptr;
}

Status compare_values(const json& a, const json& b, const Shape& s, FieldPath& path,
                      Comparison& out);

Status compare_children(const json* a, const json* b, const Shape& s, FieldPath& path,
                        Comparison& out) {
  if (a == nullptr && b == nullptr) return Status::ok();
  if (a == nullptr) return collect_nodes(*b, s, path, out.added);
  if (b == nullptr) return collect_nodes(*a, s, path, out.removed);
  return compare_values(*a, *b, s, path, out);
}

// metadata.managedFields: compared objects may carry it (the field manager compares whole
// objects rather than copies without it); no field set records what is below it.
bool skipped(const FieldPath& path, const std::string& key) {
  static const FieldPath metadata = {"f:metadata"};
  return key == "managedFields" && path == metadata;
}

Status compare_values(const json& a, const json& b, const Shape& s, FieldPath& path,
                      Comparison& out) {
  // Equal subtrees add nothing: an update changes a small part of an object (a status
  // patch, a label), and walking the rest built a path per node.
  if (a == b) return Status::ok();
  if (walk_as_object(a, s) && walk_as_object(b, s) && !(a.empty() && b.empty())) {
    for (auto& [k, child] : a.items()) {
      if (skipped(path, k)) continue;
      auto other = b.find(k);
      Step step(path, "f:", k);
      RETURN_IF_ERROR(compare_children(&child, other == b.end() ? nullptr : &*other,
                                       child_shape(s, k), path, out));
    }
    for (auto& [k, child] : b.items()) {
      if (a.contains(k) || skipped(path, k)) continue;
      Step step(path, "f:", k);
      RETURN_IF_ERROR(compare_children(nullptr, &child, child_shape(s, k), path, out));
    }
    return Status::ok();
  }
  if (walk_as_list(a, s) && walk_as_list(b, s) && !(a.empty() && b.empty())) {
    ASSIGN_OR_RETURN(auto old_items, items_by_step(a, s));
    ASSIGN_OR_RETURN(auto new_items, items_by_step(b, s));
    Shape element = element_shape(s);
    bool keyed = list_rules(s).kind == ListKind::kMap;
    for (const auto& [item_step_text, item] : old_items) {
      const json* now = find_step(new_items, item_step_text);
      Step step(path, item_step_text);
      if (now == nullptr) {
        out.removed.insert(path);
        if (keyed) RETURN_IF_ERROR(collect_nodes(*item, element, path, out.removed));
      } else if (keyed) {
        RETURN_IF_ERROR(compare_values(*item, *now, element, path, out));
      }
    }
    for (const auto& [item_step_text, item] : new_items) {
      if (find_step(old_items, item_step_text) != nullptr) continue;
      Step step(path, item_step_text);
      out.added.insert(path);
      if (keyed) RETURN_IF_ERROR(collect_nodes(*item, element, path, out.added));
    }
    return Status::ok();
  }
  if (!path.empty()) out.modified.insert(path);  // a leaf, and unequal (checked above)
  return Status::ok();
}

json without_nulls(json v) {
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end();) {
      if (it->is_null()) {
        it = v.erase(it);
      } else {
        *it = without_nulls(std::move(*it));
        ++it;
      }
    }
  } else if (v.is_array()) {
    for (json& e : v) e = without_nulls(std::move(e));
  }
  return v;
}

Result<json> merge_value(const json& live, const json& config, const Shape& s) {
  if (walk_as_object(live, s) && walk_as_object(config, s)) {
    json out = live;
    for (auto& [k, v] : config.items()) {
      if (v.is_null()) {
        out.erase(k);
      } else if (auto it = out.find(k); it != out.end()) {
        ASSIGN_OR_RETURN(*it, merge_value(*it, v, child_shape(s, k)));
      } else {
        out[k] = without_nulls(v);
      }
    }
    return out;
  }
  if (walk_as_list(live, s) && walk_as_list(config, s)) {
    ListRules rules = list_rules(s);
    json out = live;
    for (const json& item : config) {
      ASSIGN_OR_RETURN(std::string step, item_step(item, s, rules));
      bool found = false;
      for (json& existing : out) {
        ASSIGN_OR_RETURN(std::string existing_step, item_step(existing, s, rules));
        if (existing_step != step) continue;
        if (rules.kind == ListKind::kMap) {
          ASSIGN_OR_RETURN(existing, merge_value(existing, item, element_shape(s)));
        }
        found = true;
        break;
      }
      if (!found) out.push_back(without_nulls(item));
    }
    return out;
  }
  return without_nulls(config);
}

// Removes the value at path[at...] below `node`; true when something was removed.
bool remove_at(json& node, const Shape& s, const std::vector<std::string>& path, size_t at) {
  const std::string& step = path[at];
  bool last = at + 1 == path.size();
  json* child = nullptr;
  Shape child_s;
  if (step.rfind("f:", 0) == 0 && node.is_object()) {
    std::string key = step.substr(2);
    auto it = node.find(key);
    if (it == node.end()) return false;
    if (last) {
      node.erase(it);
      return true;
    }
    child = &*it;
    child_s = child_shape(s, key);
  } else if ((step.rfind("k:", 0) == 0 || step.rfind("v:", 0) == 0) && node.is_array()) {
    ListRules rules = list_rules(s);
    for (size_t i = 0; i < node.size(); ++i) {
      auto item = item_step(node[i], s, rules);
      if (!item.is_ok() || *item != step) continue;
      if (last) {
        node.erase(i);
        return true;
      }
      child = &node[i];
      child_s = element_shape(s);
      break;
    }
  }
  if (child == nullptr) return false;
  bool was_empty = child->empty();
  bool removed = remove_at(*child, child_s, path, at + 1);
  // A map or list left empty by the removal goes too (upstream's typed objects omit them).
  if (removed && !was_empty && child->empty() && node.is_object()) {
    node.erase(step.substr(2));
  }
  return removed;
}

Shape top_shape(const MessageType* type, FieldType& holder) {
  if (type == nullptr) return {};
  holder.kind = FieldType::Kind::kMessage;
  holder.message = type;
  return {&holder, nullptr};
}

// A FieldsV1 member name: "." or a path element (f:, k:, v:, i:).
bool v1_step(std::string_view k) {
  return k.size() >= 2 && k[1] == ':' && std::string_view("fkvi").find(k[0]) != std::string::npos;
}

Status decode_v1(const json& node, FieldPath& path, FieldSet& out) {
  if (!node.is_object()) {
    return error(Code::kBadRequest, "FieldsV1: expected an object at " + path_string(path));
  }
  if (node.empty() && !path.empty()) out.insert(path);
  for (auto& [k, child] : node.items()) {
    if (k == ".") {
      if (!path.empty()) out.insert(path);
      continue;
    }
    if (!v1_step(k)) {
      return error(Code::kBadRequest, "FieldsV1: unknown path element \"" + k + "\"");
    }
    Step step(path, k);
    RETURN_IF_ERROR(decode_v1(child, path, out));
  }
  return Status::ok();
}

}  // namespace

Result<FieldSet> fieldset_from_v1(const json& fields_v1) {
  FieldSet out;
  FieldPath path;
  RETURN_IF_ERROR(decode_v1(fields_v1, path, out));
  return out;
}

bool fields_v1_readable(const json& node) {
  if (!node.is_object()) return false;
  for (auto& [k, child] : node.items()) {
    if (k == ".") continue;
    if (!v1_step(k) || !fields_v1_readable(child)) return false;
  }
  return true;
}

bool fields_v1_holds(const json& fields_v1, const FieldPath& path) {
  const json* node = &fields_v1;
  const bool found = path.each_step([&](std::string_view step) {
    auto it = node->find(step);
    if (it == node->end()) return false;
    node = &*it;
    return true;
  });
  return found && !path.empty() && (node->empty() || node->contains("."));
}

json fieldset_to_v1(const FieldSet& set) {
  json root = json::object();
  // The members' nodes (a map's nodes stay where they are as others are added).
  std::vector<json*> members;
  members.reserve(set.size());
  for (const FieldPath& path : set) {
    json* node = &root;
    path.each_step([&](std::string_view step) {
      auto it = node->find(step);
      if (it == node->end()) it = node->emplace(step, json::object()).first;
      node = &*it;
      return true;
    });
    members.push_back(node);
  }
  // A member with children is marked with "." (a leaf member is just `{}`).
  for (json* node : members) {
    if (!node->empty() && !node->contains(".")) (*node)["."] = json::object();
  }
  return root;
}

std::string path_string(const FieldPath& path) {
  std::string out;
  for (const std::string& step : path.steps()) {
    std::string rest = step.substr(2);
    switch (step[0]) {
      case 'f':
        out += "." + rest;
        break;
      case 'k': {
        json key = json::parse(rest, nullptr, false);
        out += "[";
        bool first = true;
        if (key.is_object()) {
          for (auto& [k, v] : key.items()) {
            out += (first ? "" : ",") + k + "=" + v.dump();
            first = false;
          }
        }
        out += "]";
        break;
      }
      case 'v':
        out += "[=" + rest + "]";
        break;
      default:
        out += "[" + rest + "]";
    }
  }
  return out;
}

Result<FieldSet> fields_of(const json& object, const MessageType* type) {
  FieldType holder;
  FieldSet out;
  FieldPath path;
  RETURN_IF_ERROR(collect_fields(object, top_shape(type, holder), path, out));
  return out;
}

Result<Comparison> compare(const json& old_object, const json& new_object, const MessageType* type,
                           CompareScope scope) {
  FieldType holder;
  Comparison out;
  const Shape top = top_shape(type, holder);
  FieldPath path;
  if (scope == CompareScope::kWhole || !old_object.is_object() || !new_object.is_object()) {
    RETURN_IF_ERROR(compare_values(old_object, new_object, top, path, out));
  } else if (scope == CompareScope::kStatusOnly) {
    auto a = old_object.find("status");
    auto b = new_object.find("status");
    Step step(path, "f:status");
    RETURN_IF_ERROR(compare_children(a == old_object.end() ? nullptr : &*a,
                                     b == new_object.end() ? nullptr : &*b,
                                     child_shape(top, "status"), path, out));
  } else {
    for (auto& [k, child] : old_object.items()) {
      if (k == "status") continue;
      auto other = new_object.find(k);
      Step step(path, "f:", k);
      RETURN_IF_ERROR(compare_children(&child, other == new_object.end() ? nullptr : &*other,
                                       child_shape(top, k), path, out));
    }
    for (auto& [k, child] : new_object.items()) {
      if (k == "status" || old_object.contains(k)) continue;
      Step step(path, "f:", k);
      RETURN_IF_ERROR(compare_children(nullptr, &child, child_shape(top, k), path, out));
    }
  }
  return out;
}

Result<json> merge_applied(const json& live, const json& config, const MessageType* type) {
  FieldType holder;
  return merge_value(live, config, top_shape(type, holder));
}

json remove_paths(json object, const FieldSet& paths, const MessageType* type) {
  FieldType holder;
  Shape top = top_shape(type, holder);
  for (const FieldPath& path : paths) {
    if (!path.empty()) remove_at(object, top, path.steps(), 0);
  }
  return object;
}

}  // namespace k3c::api
