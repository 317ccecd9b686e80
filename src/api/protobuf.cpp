// Protobuf -> JSON transcoding driven by the schemas (see protobuf.h and doc/schemas.md).
#include "api/protobuf.h"

#include <bit>

#include "api/internal/proto_special.h"
#include "api/internal/proto_wire.h"
#include "core/base64.h"
#include "core/utf8.h"

namespace k3c::api {
namespace {

using internal::WireField;
using internal::WireReader;
using internal::WireType;
using nlohmann::json;
using Kind = FieldType::Kind;

constexpr size_t kMaxUnknownExamples = 8;

Status bad(const std::string& what) { return error(Code::kBadRequest, "protobuf: " + what); }

WireType expected_wire_type(Kind kind) {
  switch (kind) {
    case Kind::kInt32:
    case Kind::kInt64:
    case Kind::kBool:
      return WireType::kVarint;
    case Kind::kDouble:
      return WireType::kFixed64;
    default:
      return WireType::kLen;
  }
}

// What a JSON value of `kind` is when the wire leaves it out (map values).
json zero_of(Kind kind) {
  switch (kind) {
    case Kind::kInt32:
    case Kind::kInt64:
      return 0;
    case Kind::kBool:
      return false;
    case Kind::kDouble:
      return 0.0;
    case Kind::kMessage:
      return json::object();
    case Kind::kList:
      return json::array();
    case Kind::kMap:
      return json::object();
    case Kind::kTime:
    case Kind::kMicroTime:
    case Kind::kRawExtension:
      return nullptr;
    case Kind::kDuration:
      return "0s";
    case Kind::kQuantity:
      return "0";
    case Kind::kIntOrString:
      return 0;
    default:
      return "";
  }
}

// True when a decoded scalar is its type's zero value (Go omitempty would drop it).
bool is_zero(const json& v) {
  if (v.is_null()) return true;
  if (v.is_string()) return v.get_ref<const std::string&>().empty();
  if (v.is_boolean()) return !v.get<bool>();
  if (v.is_number_integer()) return v.get<int64_t>() == 0;
  if (v.is_number_float()) return v.get<double>() == 0.0;
  return false;
}

// A oneOf type's JSON is the value of its highest-numbered field that is set, or null.
json one_of_value(json decoded, const MessageType& type) {
  for (auto f = type.fields.rbegin(); f != type.fields.rend(); ++f) {
    auto it = decoded.find(f->name);
    if (it != decoded.end()) return std::move(*it);
  }
  return nullptr;
}

class Transcoder {
 public:
  Result<json> message(std::string_view bytes, const MessageType& type, int depth);

  size_t unknown = 0;
  std::vector<std::string> unknown_examples;

 private:
  Status field(json& out, const Field& f, const WireField& w, const std::string& where, int depth);
  Result<json> value(const FieldType& type, const WireField& w, const std::string& where,
                     int depth);
  Result<json> special(Kind kind, std::string_view bytes, const std::string& where);
  void note_unknown(const std::string& where, uint64_t number) {
    ++unknown;
    if (unknown_examples.size() < kMaxUnknownExamples) {
      unknown_examples.push_back(where + "#" + std::to_string(number));
    }
  }
};

Result<json> Transcoder::message(std::string_view bytes, const MessageType& type, int depth) {
  if (depth > kMaxProtobufDepth) {
    return bad("nesting deeper than " + std::to_string(kMaxProtobufDepth) + " at " + type.name);
  }
  json out = json::object();
  WireReader reader(bytes);
  while (!reader.done()) {
    ASSIGN_OR_RETURN(WireField w, reader.next());
    const Field* f = type.field_by_number(w.number);
    if (f == nullptr) {
      note_unknown(type.name, w.number);
      continue;
    }
    const std::string where = type.name + "." + (f->inline_fields ? f->type.spelling : f->name);
    RETURN_IF_ERROR(field(out, *f, w, where, depth));
  }
  if (type.one_of) return one_of_value(std::move(out), type);
  return out;
}

Status Transcoder::field(json& out, const Field& f, const WireField& w, const std::string& where,
                         int depth) {
  const FieldType& t = f.type;
  if (t.kind == Kind::kList) {
    json& list = out[f.name];
    if (!list.is_array()) list = json::array();
    const Kind ek = t.element->kind;
    // Numeric lists may come packed: one length-delimited run of values.
    if (w.type == WireType::kLen && ek == Kind::kDouble) {
      if (w.bytes.size() % 8 != 0) return bad(where + ": packed doubles of odd length");
      for (size_t i = 0; i < w.bytes.size(); i += 8) {
        uint64_t bits = 0;
        for (size_t k = 0; k < 8; ++k)
          bits |= uint64_t{static_cast<uint8_t>(w.bytes[i + k])} << (8 * k);
        list.push_back(std::bit_cast<double>(bits));
      }
      return Status::ok();
    }
    if (w.type == WireType::kLen && expected_wire_type(ek) == WireType::kVarint) {
      WireReader packed(w.bytes);
      while (!packed.done()) {
        WireField item{w.number, WireType::kVarint, 0, {}};
        ASSIGN_OR_RETURN(item.value, packed.varint());
        ASSIGN_OR_RETURN(json v, value(*t.element, item, where, depth));
        list.push_back(std::move(v));
      }
      return Status::ok();
    }
    ASSIGN_OR_RETURN(json v, value(*t.element, w, where, depth));
    list.push_back(std::move(v));
    return Status::ok();
  }
  ASSIGN_OR_RETURN(json v, value(t, w, where, depth));
  if (f.inline_fields) {
    for (auto& [k, item] : v.items()) out[k] = std::move(item);
    return Status::ok();
  }
  if (t.kind == Kind::kMap || t.kind == Kind::kMessage) {
    // A repeated map entry adds to the map; a repeated message merges into the first. A
    // oneOf message may be a bool, a list or null instead of an object: the last one wins,
    // and null is absent.
    json& slot = out[f.name];
    if (slot.is_object() && v.is_object()) {
      slot.update(v);
    } else {
      slot = std::move(v);
    }
    if (slot.is_null()) out.erase(f.name);
    return Status::ok();
  }
  // Later occurrences of a scalar win, as in protobuf; zero means "not set" unless kept.
  if (v.is_null() || (is_zero(v) && !f.keep_zero)) {
    out.erase(f.name);
  } else {
    out[f.name] = std::move(v);
  }
  return Status::ok();
}

Result<json> Transcoder::value(const FieldType& type, const WireField& w, const std::string& where,
                               int depth) {
  if (w.type != expected_wire_type(type.kind)) {
    return bad(where + " (field " + std::to_string(w.number) + "): wire type " +
               std::string(internal::wire_type_name(w.type)) + ", expected " +
               std::string(internal::wire_type_name(expected_wire_type(type.kind))));
  }
  switch (type.kind) {
    case Kind::kString:
      if (!valid_utf8(w.bytes)) return bad(where + ": string is not valid UTF-8");
      return json(std::string(w.bytes));
    case Kind::kBytes:
      return json(base64_encode(w.bytes));
    case Kind::kInt32:
      return json(static_cast<int32_t>(static_cast<uint32_t>(w.value)));
    case Kind::kInt64:
      return json(static_cast<int64_t>(w.value));
    case Kind::kBool:
      return json(w.value != 0);
    case Kind::kDouble:
      return json(std::bit_cast<double>(w.value));
    case Kind::kMessage:
      return message(w.bytes, *type.message, depth + 1);
    case Kind::kMap: {
      // One entry message {1 key, 2 value} per occurrence.
      WireReader entry(w.bytes);
      std::string key;
      json v = zero_of(type.element->kind);
      while (!entry.done()) {
        ASSIGN_OR_RETURN(WireField e, entry.next());
        if (e.number == 1) {
          if (e.type != WireType::kLen || !valid_utf8(e.bytes)) return bad(where + ": bad map key");
          key = std::string(e.bytes);
        } else if (e.number == 2) {
          ASSIGN_OR_RETURN(v, value(*type.element, e, where + "[" + key + "]", depth + 1));
        } else {
          note_unknown(where + "(map entry)", e.number);
        }
      }
      json out = json::object();
      out[key] = std::move(v);
      return out;
    }
    case Kind::kList: {
      // A list inside a map or list travels as a wrapper message {1 repeated items}.
      if (depth + 1 > kMaxProtobufDepth)
        return bad("nesting deeper than " + std::to_string(kMaxProtobufDepth));
      json out = json::array();
      WireReader items(w.bytes);
      while (!items.done()) {
        ASSIGN_OR_RETURN(WireField e, items.next());
        if (e.number != 1) {
          note_unknown(where + "(list wrapper)", e.number);
          continue;
        }
        ASSIGN_OR_RETURN(json v, value(*type.element, e, where, depth + 1));
        out.push_back(std::move(v));
      }
      return out;
    }
    default:
      return special(type.kind, w.bytes, where);
  }
}

// The special types: small messages with their own JSON spelling.
Result<json> Transcoder::special(Kind kind, std::string_view bytes, const std::string& where) {
  int64_t number1 = 0, number2 = 0;  // Time seconds/nanos, Duration, IntOrString type/intVal
  std::string_view text;             // Quantity string, IntOrString strVal, RawExtension raw
  WireReader reader(bytes);
  while (!reader.done()) {
    ASSIGN_OR_RETURN(WireField w, reader.next());
    const bool is_len = w.type == WireType::kLen;
    if (kind == Kind::kQuantity || kind == Kind::kRawExtension) {
      if (w.number != 1) continue;  // RawExtension/Quantity carry one field
      if (!is_len) return bad(where + ": expected length-delimited field 1");
      text = w.bytes;
    } else if (kind == Kind::kIntOrString && w.number == 3) {
      if (!is_len) return bad(where + ": strVal must be length-delimited");
      text = w.bytes;
    } else if (w.number == 1 || w.number == 2) {
      if (w.type != WireType::kVarint)
        return bad(where + ": expected a varint in field " + std::to_string(w.number));
      (w.number == 1 ? number1 : number2) = static_cast<int64_t>(w.value);
    }
  }
  switch (kind) {
    case Kind::kTime:
    case Kind::kMicroTime: {
      if (number1 == 0 && number2 == 0) return json(nullptr);  // Go's zero time: "no time"
      auto s = internal::format_rfc3339(number1, static_cast<int32_t>(number2),
                                        kind == Kind::kMicroTime);
      if (!s.is_ok()) return bad(where + ": " + s.status().message());
      return json(std::move(s).value());
    }
    case Kind::kDuration:
      return json(internal::format_go_duration(number1));
    case Kind::kQuantity:
      if (!valid_utf8(text)) return bad(where + ": quantity is not valid UTF-8");
      return json(std::string(text));
    case Kind::kIntOrString:
      if (number1 == 1) {
        if (!valid_utf8(text)) return bad(where + ": strVal is not valid UTF-8");
        return json(std::string(text));
      }
      return json(static_cast<int32_t>(number2));
    case Kind::kRawExtension: {
      if (text.empty()) return json(nullptr);
      json embedded = json::parse(text, nullptr, /*allow_exceptions=*/false);
      if (embedded.is_discarded()) {
        return bad(where +
                   ": embedded object is not JSON (nested protobuf objects are not supported)");
      }
      return embedded;
    }
    default:
      return bad(where + ": unexpected type");
  }
}

Result<GroupVersionKind> read_type_meta(std::string_view bytes) {
  GroupVersionKind gvk;
  std::string api_version;
  WireReader reader(bytes);
  while (!reader.done()) {
    ASSIGN_OR_RETURN(WireField w, reader.next());
    if (w.type != WireType::kLen || (w.number != 1 && w.number != 2)) continue;
    (w.number == 1 ? api_version : gvk.kind) = std::string(w.bytes);
  }
  auto slash = api_version.find('/');
  gvk.group = slash == std::string::npos ? "" : api_version.substr(0, slash);
  gvk.version = slash == std::string::npos ? api_version : api_version.substr(slash + 1);
  if (gvk.version.empty() || gvk.kind.empty())
    return bad("the envelope names no apiVersion and kind");
  return gvk;
}

}  // namespace

Result<ProtobufObject> decode_protobuf_message(std::string_view message, const MessageType& type) {
  Transcoder t;
  ASSIGN_OR_RETURN(json object, t.message(message, type, 1));
  ProtobufObject out;
  out.object = std::move(object);
  out.unknown_fields = t.unknown;
  out.unknown_examples = std::move(t.unknown_examples);
  return out;
}

Result<ProtobufObject> decode_protobuf(std::string_view body, const SchemaSet& schemas,
                                       const ResourceRegistry& registry) {
  if (!body.starts_with(kProtobufMagic))
    return bad("the body does not start with the k8s\\0 magic");
  WireReader envelope(body.substr(kProtobufMagic.size()));
  std::string_view type_meta, raw, content_encoding;
  bool have_type_meta = false;
  while (!envelope.done()) {
    ASSIGN_OR_RETURN(WireField w, envelope.next());
    if (w.number > 4) continue;
    if (w.type != WireType::kLen)
      return bad("envelope field " + std::to_string(w.number) + " is not length-delimited");
    if (w.number == 1) {
      type_meta = w.bytes;
      have_type_meta = true;
    }
    if (w.number == 2) raw = w.bytes;
    if (w.number == 3) content_encoding = w.bytes;
  }
  if (!have_type_meta) return bad("the envelope has no typeMeta");
  if (!content_encoding.empty()) {
    return bad("content encoding \"" + std::string(content_encoding) + "\" is not supported");
  }
  ASSIGN_OR_RETURN(GroupVersionKind gvk, read_type_meta(type_meta));
  const std::string api_version = group_version_string(gvk.group, gvk.version);
  const MessageType* type = schemas.kind(gvk);
  if (type == nullptr) {
    if (registry.find_kind(gvk.group, gvk.version, gvk.kind) != nullptr) {
      return error(Code::kUnsupportedMediaType,
                   "protobuf bodies of " + api_version + " " + gvk.kind +
                       " are not supported by k3c yet; send application/json");
    }
    return bad("no kind " + gvk.kind + " is registered for version " + api_version);
  }
  ASSIGN_OR_RETURN(ProtobufObject out, decode_protobuf_message(raw, *type));
  out.object["apiVersion"] = api_version;
  out.object["kind"] = gvk.kind;
  out.gvk = std::move(gvk);
  return out;
}

Result<nlohmann::json> decode_protobuf_object(std::string_view body, const SchemaSet& schemas,
                                              const ResourceRegistry& registry) {
  ASSIGN_OR_RETURN(ProtobufObject decoded, decode_protobuf(body, schemas, registry));
  return std::move(decoded.object);
}

}  // namespace k3c::api
