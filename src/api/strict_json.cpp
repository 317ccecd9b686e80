// Unknown and duplicate field detection (see strict_json.h). JSON text goes through
// nlohmann's parser callback, which sees every key in document order (the parsed object
// forgets both order and repeats); a stack of frames follows the schema type of each open
// object or array.
#include "api/strict_json.h"

#include <set>

#include "api/field_errors.h"
#include "api/validation.h"

namespace k3c::api {
namespace {

using nlohmann::json;
using Kind = FieldType::Kind;

// What an open JSON container is, for the schema.
struct Frame {
  enum class What { kMessage, kMap, kList, kUntyped, kSkipped };
  What what = What::kUntyped;
  const MessageType* message = nullptr;  // kMessage
  const FieldType* element = nullptr;    // kMap, kList (null: untyped elements)
  std::string path;
  bool root = false;
  std::set<std::string> keys;  // seen so far (objects)
  size_t next_index = 0;       // kList
  // The value after the last key: its type and path (set on the key event).
  const FieldType* pending = nullptr;
  bool pending_skipped = false;
  std::string pending_path;
};

Frame frame_for(const FieldType* t, std::string path, bool is_object) {
  Frame f;
  f.path = std::move(path);
  if (!t) return f;
  if (is_object && t->kind == Kind::kMessage) {
    f.what = Frame::What::kMessage;
    f.message = t->message;
  } else if (is_object && t->kind == Kind::kMap) {
    f.what = Frame::What::kMap;
    f.element = t->element.get();
  } else if (!is_object && t->kind == Kind::kList) {
    f.what = Frame::What::kList;
    f.element = t->element.get();
  }
  return f;  // anything else (RawExtension, a wrong JSON type) is not looked into
}

class Checker {
 public:
  Checker(const MessageType* root, bool drop) : root_(root), drop_(drop) {}

  // `depth` is the number of containers open around the event. nlohmann delivers start,
  // key and value events inside a discarded value but no end events for it, so the stack
  // is resynchronised from the depth rather than from end events.
  bool operator()(int depth, json::parse_event_t event, json& parsed) {
    size_t d = static_cast<size_t>(depth);
    switch (event) {
      case json::parse_event_t::object_start:
      case json::parse_event_t::array_start:
        if (stack_.size() > d) stack_.resize(d);
        open(event == json::parse_event_t::object_start);
        return true;
      case json::parse_event_t::object_end:
      case json::parse_event_t::array_end:
        if (stack_.size() > d) stack_.resize(d);
        return true;
      case json::parse_event_t::key:
        if (stack_.size() > d) stack_.resize(d);
        return key(parsed.get<std::string>());
      case json::parse_event_t::value:
        if (stack_.size() > d) stack_.resize(d);
        if (!stack_.empty() && stack_.back().what == Frame::What::kList) ++stack_.back().next_index;
        return true;
    }
    return true;
  }

  std::vector<std::string> problems;

 private:
  void open(bool is_object) {
    if (stack_.empty()) {
      Frame f;
      if (is_object && root_) {
        f.what = Frame::What::kMessage;
        f.message = root_;
      }
      f.root = true;
      stack_.push_back(std::move(f));
      return;
    }
    Frame& parent = stack_.back();
    Frame f;
    switch (parent.what) {
      case Frame::What::kSkipped:
        f.what = Frame::What::kSkipped;
        break;
      case Frame::What::kList:
        f = frame_for(parent.element, index(parent.path, parent.next_index++), is_object);
        break;
      case Frame::What::kMessage:
      case Frame::What::kMap:
        if (parent.pending_skipped) {
          f.what = Frame::What::kSkipped;
        } else {
          f = frame_for(parent.pending, parent.pending_path, is_object);
        }
        break;
      case Frame::What::kUntyped:
        f.path = parent.pending_path;
        break;
    }
    stack_.push_back(std::move(f));
  }

  bool key(const std::string& name) {
    if (stack_.empty()) return true;
    Frame& f = stack_.back();
    if (f.what == Frame::What::kSkipped) return true;
    std::string path = child(f.path, name);
    bool repeated = !f.keys.insert(name).second;
    f.pending = nullptr;
    f.pending_skipped = false;
    f.pending_path = path;
    if (f.what == Frame::What::kMessage) {
      const Field* field = find_field(*f.message, name);
      bool type_meta = f.root && (name == "apiVersion" || name == "kind");
      if (!field && !type_meta) {
        if (!repeated) problems.push_back("unknown field \"" + path + "\"");
        f.pending_skipped = true;
        return !drop_;
      }
      if (field) f.pending = &field->type;
    } else if (f.what == Frame::What::kMap) {
      f.pending = f.element;
    }
    if (repeated) problems.push_back("duplicate field \"" + path + "\"");
    return true;
  }

  const MessageType* root_;
  bool drop_;
  std::vector<Frame> stack_;
};

void collect_unknown(json& object, const MessageType& type, const std::string& path, bool root,
                     bool drop, std::vector<std::string>& out);

void collect_in_value(json& value, const FieldType& t, const std::string& path, bool drop,
                      std::vector<std::string>& out) {
  if (t.kind == Kind::kMessage && value.is_object()) {
    collect_unknown(value, *t.message, path, false, drop, out);
  } else if (t.kind == Kind::kList && t.element && value.is_array()) {
    for (size_t i = 0; i < value.size(); ++i)
      collect_in_value(value[i], *t.element, index(path, i), drop, out);
  } else if (t.kind == Kind::kMap && t.element && value.is_object()) {
    for (auto& [k, v] : value.items()) collect_in_value(v, *t.element, child(path, k), drop, out);
  }
}

void collect_unknown(json& object, const MessageType& type, const std::string& path, bool root,
                     bool drop, std::vector<std::string>& out) {
  std::vector<std::string> unknown;
  for (auto& [k, v] : object.items()) {
    const Field* field = find_field(type, k);
    if (!field) {
      if (root && (k == "apiVersion" || k == "kind")) continue;
      out.push_back("unknown field \"" + child(path, k) + "\"");
      unknown.push_back(k);
      continue;
    }
    collect_in_value(v, field->type, child(path, k), drop, out);
  }
  if (drop) {
    for (const auto& k : unknown) object.erase(k);
  }
}

// Go's names: the JSON kind of a value, and the Go type of a field.
const char* json_kind(const json& v) {
  if (v.is_string()) return "string";
  if (v.is_boolean()) return "bool";
  if (v.is_number()) return "number";
  if (v.is_array()) return "array";
  return "object";
}

std::string go_type(const FieldType& t) {
  switch (t.kind) {
    case Kind::kString:
      return "string";
    case Kind::kInt32:
      return "int32";
    case Kind::kInt64:
      return "int64";
    case Kind::kBool:
      return "bool";
    case Kind::kDouble:
      return "float64";
    case Kind::kBytes:
      return "[]uint8";
    case Kind::kList:
      return "[]" + (t.element ? go_type(*t.element) : std::string("interface {}"));
    case Kind::kMap:
      return "map[string]" + (t.element ? go_type(*t.element) : std::string("interface {}"));
    case Kind::kMessage: {
      // "core.v1.Container" -> "v1.Container"
      const std::string& n = t.message->name;
      return n.substr(n.find('.') + 1);
    }
    default:
      return t.spelling;
  }
}

bool fits(const FieldType& t, const json& v) {
  if (v.is_null()) return true;
  switch (t.kind) {
    case Kind::kString:
    case Kind::kBytes:
    case Kind::kTime:
    case Kind::kMicroTime:
    case Kind::kDuration:
      return v.is_string();
    case Kind::kInt32:
    case Kind::kInt64:
      return v.is_number_integer();
    case Kind::kBool:
      return v.is_boolean();
    case Kind::kDouble:
      return v.is_number();
    case Kind::kQuantity:
    case Kind::kIntOrString:
      return v.is_string() || v.is_number();
    case Kind::kRawExtension:
      return true;
    case Kind::kMessage:
    case Kind::kMap:
      return v.is_object();
    case Kind::kList:
      return v.is_array();
  }
  return true;
}

// `path` leaves out list indexes and map keys, as Go's error does.
std::optional<std::string> mismatch_in(const json& object, const MessageType& type,
                                       const std::string& path) {
  for (auto& [k, v] : object.items()) {
    const Field* f = find_field(type, k);
    if (!f) continue;
    std::string p = child(path, k);
    const FieldType* t = &f->type;
    const json* value = &v;
    // Descend through lists and maps to the values they hold.
    std::vector<const json*> values = {value};
    while (true) {
      for (const json* one : values) {
        if (!fits(*t, *one)) {
          std::string owner = type.name.substr(type.name.rfind('.') + 1);
          return "json: cannot unmarshal " + std::string(json_kind(*one)) +
                 " into Go struct field " + owner + "." + p + " of type " + go_type(*t);
        }
      }
      if ((t->kind != Kind::kList && t->kind != Kind::kMap) || !t->element) break;
      std::vector<const json*> inner;
      for (const json* one : values) {
        if (one->is_null()) continue;
        for (const json& item : *one) inner.push_back(&item);
      }
      values = std::move(inner);
      t = t->element.get();
    }
    if (t->kind == Kind::kMessage) {
      for (const json* one : values) {
        if (!one->is_object()) continue;
        if (auto m = mismatch_in(*one, *t->message, p)) return m;
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> type_mismatch(const json& document, const MessageType& type) {
  if (!document.is_object()) return std::nullopt;
  return mismatch_in(document, type, "");
}

std::optional<CheckedJson> parse_checked(std::string_view text, const MessageType* type,
                                         bool drop_unknown) {
  Checker checker(type, drop_unknown);
  json value = json::parse(
      text.begin(), text.end(),
      [&checker](int depth, json::parse_event_t event, json& parsed) {
        return checker(depth, event, parsed);
      },
      /*allow_exceptions=*/false);
  if (value.is_discarded()) return std::nullopt;
  return CheckedJson{std::move(value), std::move(checker.problems)};
}

std::vector<std::string> unknown_fields(json& document, const MessageType& type, bool drop) {
  std::vector<std::string> out;
  if (document.is_object()) collect_unknown(document, type, "", true, drop, out);
  return out;
}

}  // namespace k3c::api
