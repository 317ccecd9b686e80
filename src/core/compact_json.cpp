// The compact, read-only JSON document (see compact_json.h).
#include "core/compact_json.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>

namespace k3c::cjson {

using nlohmann::json;

namespace {

// Keys of the built-in kinds' fields that most objects carry, and well-known label keys.
// Sorted by bytes (compact_json_test checks it). Adding one is safe; documents made before
// a change of this table do not outlive the process.
constexpr std::string_view kKnownKeys[] = {
#include "core/compact_json_keys.inc"
};

constexpr uint32_t kMaxInlineKey = std::numeric_limits<uint16_t>::max();

std::optional<uint32_t> known_key(std::string_view key) {
  auto it = std::lower_bound(std::begin(kKnownKeys), std::end(kKnownKeys), key);
  if (it == std::end(kKnownKeys) || *it != key) return std::nullopt;
  return static_cast<uint32_t>(it - std::begin(kKnownKeys));
}

// The string bytes a member's key takes in the document.
size_t key_bytes(std::string_view key) {
  if (known_key(key)) return 0;
  return key.size() > kMaxInlineKey ? sizeof(uint32_t) + key.size() : key.size();
}

}  // namespace

std::span<const std::string_view> known_keys() { return kKnownKeys; }

// Lays a tree out in two passes: one counts the nodes and string bytes, so the block is
// allocated once at its exact size; the other fills it. Children are placed after their
// container's own siblings, so each container's children are consecutive.
class Builder {
 public:
  std::shared_ptr<const Document> build(const json& root) {
    count(root);
    if (nodes_needed_ > std::numeric_limits<uint32_t>::max() ||
        string_bytes_needed_ > std::numeric_limits<uint32_t>::max())
      throw std::length_error("compact JSON: too large");
    auto doc = std::shared_ptr<Document>(new Document());
    doc->node_count_ = static_cast<uint32_t>(nodes_needed_);
    doc->string_bytes_ = string_bytes_needed_;
    doc->block_ = std::make_unique<char[]>(nodes_needed_ * sizeof(Node) + string_bytes_needed_);
    nodes_ = reinterpret_cast<Node*>(doc->block_.get());
    strings_ = doc->block_.get() + nodes_needed_ * sizeof(Node);
    next_node_ = 1;
    fill(root, 0);
    return doc;
  }

 private:
  void count(const json& j) {
    ++nodes_needed_;
    switch (j.type()) {
      case json::value_t::string:
        string_bytes_needed_ += j.get_ref<const std::string&>().size();
        break;
      case json::value_t::array:
        for (const auto& e : j) count(e);
        break;
      case json::value_t::object:
        for (const auto& [key, value] : j.get_ref<const json::object_t&>()) {
          string_bytes_needed_ += key_bytes(key);
          count(value);
        }
        break;
      default:
        break;
    }
  }

  // Copies bytes to the strings; their offset.
  uint32_t put_bytes(const void* data, size_t size) {
    uint32_t at = static_cast<uint32_t>(next_byte_);
    if (size > 0) std::memcpy(strings_ + next_byte_, data, size);
    next_byte_ += size;
    return at;
  }

  void put_key(Node& n, std::string_view key) {
    if (auto id = known_key(key)) {
      n.key_form = KeyForm::kKnown;
      n.key = *id;
    } else if (key.size() <= kMaxInlineKey) {
      n.key_form = KeyForm::kInline;
      n.key_length = static_cast<uint16_t>(key.size());
      n.key = put_bytes(key.data(), key.size());
    } else {
      n.key_form = KeyForm::kLong;
      uint32_t length = static_cast<uint32_t>(key.size());
      n.key = put_bytes(&length, sizeof length);
      put_bytes(key.data(), key.size());
    }
  }

  static uint64_t span(uint64_t offset, uint64_t count) { return offset | (count << 32); }

  void fill(const json& j, size_t at) {
    Node& n = nodes_[at];
    switch (j.type()) {
      case json::value_t::null:
      case json::value_t::discarded:
        n.type = Type::kNull;
        break;
      case json::value_t::boolean:
        n.type = j.get<bool>() ? Type::kTrue : Type::kFalse;
        break;
      case json::value_t::number_integer:
        n.type = Type::kInteger;
        n.payload = static_cast<uint64_t>(j.get<int64_t>());
        break;
      case json::value_t::number_unsigned:
        n.type = Type::kUnsigned;
        n.payload = j.get<uint64_t>();
        break;
      case json::value_t::number_float: {
        n.type = Type::kFloat;
        double d = j.get<double>();
        std::memcpy(&n.payload, &d, sizeof d);
        break;
      }
      case json::value_t::string: {
        const std::string& text = j.get_ref<const std::string&>();
        n.type = Type::kString;
        n.payload = span(put_bytes(text.data(), text.size()), text.size());
        break;
      }
      case json::value_t::binary:
        throw std::invalid_argument("compact JSON: binary values are not JSON");
      case json::value_t::array: {
        n.type = Type::kArray;
        size_t first = next_node_;
        n.payload = span(first, j.size());
        next_node_ += j.size();
        size_t i = first;
        for (const auto& e : j) fill(e, i++);
        break;
      }
      case json::value_t::object: {
        n.type = Type::kObject;
        size_t first = next_node_;
        n.payload = span(first, j.size());
        next_node_ += j.size();
        size_t i = first;
        // std::map's order: sorted by key bytes, what find()'s binary search expects.
        for (const auto& [key, value] : j.get_ref<const json::object_t&>()) {
          fill(value, i);
          put_key(nodes_[i], key);
          ++i;
        }
        break;
      }
    }
  }

  size_t nodes_needed_ = 0;
  size_t string_bytes_needed_ = 0;
  Node* nodes_ = nullptr;
  char* strings_ = nullptr;
  size_t next_node_ = 0;
  size_t next_byte_ = 0;
};

std::shared_ptr<const Document> Document::from(const json& json) { return Builder().build(json); }

Value Document::root() const { return Value(this, nodes()); }

size_t Value::size() const {
  switch (node_->type) {
    case Type::kNull:
      return 0;
    case Type::kArray:
    case Type::kObject:
      return node_->count();
    default:
      return 1;
  }
}

Value::Iterator Value::find(std::string_view key) const {
  if (!is_object()) return end();
  uint64_t lo = 0, hi = node_->count();
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;
    int c = key_of(child(mid)).compare(key);
    if (c == 0) return Iterator(*this, mid);
    if (c < 0) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return end();
}

bool Value::contains(std::string_view key) const { return find(key) != end(); }

Value Value::operator[](std::string_view key) const {
  if (!is_object())
    throw json::type_error::create(
        305, std::string("cannot use operator[] with a string argument with ") + type_name(),
        nullptr);
  auto it = find(key);
  if (it == end())
    throw json::out_of_range::create(403, "key '" + std::string(key) + "' not found", nullptr);
  return it.value();
}

Value Value::operator[](size_t index) const {
  if (!is_array())
    throw json::type_error::create(
        305, std::string("cannot use operator[] with a numeric argument with ") + type_name(),
        nullptr);
  if (index >= node_->count())
    throw json::out_of_range::create(
        401, "array index " + std::to_string(index) + " is out of range", nullptr);
  return Value(doc_, child(index));
}

namespace {

// nlohmann's value(): the member converted, or the fallback when it is missing; a non-object
// throws type_error 306.
template <typename T>
T member_or(const Value& v, std::string_view key, T fallback) {
  if (!v.is_object())
    throw json::type_error::create(306, "cannot use value() with a non-object", nullptr);
  auto it = v.find(key);
  return it == v.end() ? fallback : it.value().get<T>();
}

}  // namespace

std::string Value::value(std::string_view key, const char* fallback) const {
  return member_or<std::string>(*this, key, fallback);
}
std::string Value::value(std::string_view key, const std::string& fallback) const {
  return member_or<std::string>(*this, key, fallback);
}
int64_t Value::value(std::string_view key, int64_t fallback) const {
  return member_or<int64_t>(*this, key, fallback);
}
int Value::value(std::string_view key, int fallback) const {
  return member_or<int>(*this, key, fallback);
}
bool Value::value(std::string_view key, bool fallback) const {
  return member_or<bool>(*this, key, fallback);
}
double Value::value(std::string_view key, double fallback) const {
  return member_or<double>(*this, key, fallback);
}

const char* Value::type_name() const {
  switch (node_->type) {
    case Type::kNull:
      return "null";
    case Type::kFalse:
    case Type::kTrue:
      return "boolean";
    case Type::kInteger:
    case Type::kUnsigned:
    case Type::kFloat:
      return "number";
    case Type::kString:
      return "string";
    case Type::kArray:
      return "array";
    case Type::kObject:
      return "object";
  }
  return "unknown";
}

void Value::type_error(const char* wanted) const {
  throw json::type_error::create(
      302, std::string("type must be ") + wanted + ", but is " + type_name(), nullptr);
}

std::string_view Value::text() const {
  if (!is_string()) type_error("string");
  return string_of(node_);
}

// A number (or a boolean, as nlohmann converts it) as T.
template <typename T>
T Value::number() const {
  switch (node_->type) {
    case Type::kInteger:
      return static_cast<T>(static_cast<int64_t>(node_->payload));
    case Type::kUnsigned:
      return static_cast<T>(node_->payload);
    case Type::kFloat: {
      double d;
      std::memcpy(&d, &node_->payload, sizeof d);
      return static_cast<T>(d);
    }
    case Type::kFalse:
      return static_cast<T>(0);
    case Type::kTrue:
      return static_cast<T>(1);
    default:
      type_error("number");
  }
}

template <>
std::string Value::get<std::string>() const {
  return std::string(text());
}
template <>
std::string_view Value::get<std::string_view>() const {
  return text();
}
template <>
bool Value::get<bool>() const {
  if (!is_boolean()) type_error("boolean");
  return node_->type == Type::kTrue;
}
template <>
int64_t Value::get<int64_t>() const {
  return number<int64_t>();
}
template <>
int Value::get<int>() const {
  return number<int>();
}
template <>
uint64_t Value::get<uint64_t>() const {
  return number<uint64_t>();
}
template <>
double Value::get<double>() const {
  return number<double>();
}
template <>
json Value::get<json>() const {
  return to_json();
}

json Value::to_json() const {
  switch (node_->type) {
    case Type::kNull:
      return nullptr;
    case Type::kFalse:
      return false;
    case Type::kTrue:
      return true;
    case Type::kInteger:
      return static_cast<int64_t>(node_->payload);
    case Type::kUnsigned:
      return node_->payload;
    case Type::kFloat:
      return get<double>();
    case Type::kString:
      return std::string(text());
    case Type::kArray: {
      json out = json::array();
      auto& elements = out.get_ref<json::array_t&>();
      elements.reserve(node_->count());
      for (Value e : *this) elements.push_back(e.to_json());
      return out;
    }
    case Type::kObject: {
      json out = json::object();
      auto& members = out.get_ref<json::object_t&>();
      // Already in the map's order: each insertion goes at the end.
      for (auto it = begin(); it != end(); ++it)
        members.emplace_hint(members.end(), it.key(), it.value().to_json());
      return out;
    }
  }
  return nullptr;
}

Value::Iterator Value::begin() const { return Iterator(*this, 0); }
Value::Iterator Value::end() const { return Iterator(*this, is_structured() ? node_->count() : 0); }

std::string_view Value::key_of(const Node* n) const {
  switch (n->key_form) {
    case KeyForm::kNone:
      return {};
    case KeyForm::kKnown:
      return kKnownKeys[n->key];
    case KeyForm::kInline:
      return {doc_->strings() + n->key, n->key_length};
    case KeyForm::kLong: {
      uint32_t length;
      std::memcpy(&length, doc_->strings() + n->key, sizeof length);
      return {doc_->strings() + n->key + sizeof length, length};
    }
  }
  return {};
}

std::string Value::Iterator::key() const {
  if (c_.is_object()) return std::string(key_view());
  return std::to_string(pos_);
}

std::string_view Value::Iterator::key_view() const {
  return c_.is_object() ? c_.key_of(c_.child(pos_)) : std::string_view();
}

Value Value::Iterator::value() const { return Value(c_.doc_, c_.child(pos_)); }

namespace {

bool is_number_type(Type t) {
  return t == Type::kInteger || t == Type::kUnsigned || t == Type::kFloat;
}

// Numbers compare by value across integer, unsigned and float, as nlohmann's ==.
bool numbers_equal(const Value& a, const json& b) {
  if (a.is_number_float() || b.is_number_float()) return a.get<double>() == b.get<double>();
  if (a.is_number_unsigned() && b.is_number_unsigned())
    return a.get<uint64_t>() == b.get<uint64_t>();
  if (a.is_number_unsigned())
    return b.get<int64_t>() >= 0 && a.get<uint64_t>() == b.get<uint64_t>();
  if (b.is_number_unsigned())
    return a.get<int64_t>() >= 0 && a.get<uint64_t>() == b.get<uint64_t>();
  return a.get<int64_t>() == b.get<int64_t>();
}

bool numbers_equal(const Value& a, const Value& b) {
  if (a.is_number_float() || b.is_number_float()) return a.get<double>() == b.get<double>();
  if (a.is_number_unsigned() != b.is_number_unsigned()) {
    const Value& s = a.is_number_unsigned() ? b : a;  // the signed one
    if (s.get<int64_t>() < 0) return false;
  }
  return a.get<uint64_t>() == b.get<uint64_t>();
}

}  // namespace

bool Value::operator==(const Value& other) const {
  Type a = node_->type, b = other.node_->type;
  if (is_number_type(a) && is_number_type(b)) return numbers_equal(*this, other);
  if (a != b) return false;
  switch (a) {
    case Type::kString:
      return text() == other.text();
    case Type::kArray:
    case Type::kObject: {
      if (node_->count() != other.node_->count()) return false;
      for (auto i = begin(), j = other.begin(); i != end(); ++i, ++j) {
        if (a == Type::kObject && i.key_view() != j.key_view()) return false;
        if (!(i.value() == j.value())) return false;
      }
      return true;
    }
    default:
      return true;  // null, false, true
  }
}

bool Value::operator==(const json& other) const {
  if (is_number() && other.is_number()) return numbers_equal(*this, other);
  switch (node_->type) {
    case Type::kNull:
      return other.is_null();
    case Type::kFalse:
    case Type::kTrue:
      return other.is_boolean() && other.get<bool>() == (node_->type == Type::kTrue);
    case Type::kString:
      return other.is_string() && other.get_ref<const std::string&>() == text();
    case Type::kArray: {
      if (!other.is_array() || other.size() != node_->count()) return false;
      auto j = other.begin();
      for (Value e : *this) {
        if (!(e == *j)) return false;
        ++j;
      }
      return true;
    }
    case Type::kObject: {
      if (!other.is_object() || other.size() != node_->count()) return false;
      auto j = other.get_ref<const json::object_t&>().begin();
      for (auto i = begin(); i != end(); ++i, ++j) {
        if (i.key_view() != j->first || !(i.value() == j->second)) return false;
      }
      return true;
    }
    default:
      return false;  // numbers: handled above
  }
}

}  // namespace k3c::cjson
