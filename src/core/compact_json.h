// A compact, read-only JSON document: what an informer can cache for each of thousands of
// objects instead of an nlohmann tree (a 2.8 kB pod is about 15 kB as a tree: a std::map node
// of ~96 bytes per member and a heap string per value; here it is one block of 16 bytes per
// value plus the string bytes).
//
// Layout (one allocation): an array of 16-byte nodes, then the unescaped string bytes. A
// container's children are consecutive nodes, one per element or member: a member's node
// holds its key too, in nlohmann's order (sorted by key bytes), so a member is found by binary
// search. A key that Kubernetes objects use everywhere ("metadata", "containers", ...;
// known_keys()) is a number into a static table; any other key is stored with the strings.
// A trimmed running pod takes 2.2 kB (4.1 kB when every key had a node and its bytes).
//
// cjson::Value is a view (document + node) with the read API of a const nlohmann::json
// (is_*, size, find/contains/count, operator[], at, value, get, iteration with key()/value(),
// ==), so that code reading objects can be written once for both (templates) and moved over
// piece by piece. It differs where a view must: strings are read as std::string_view
// (get<std::string>() copies; there is no get_ref), and value(key, json) does not exist.
// Misuse (operator[] of a missing key, a string read as a number) throws, as nlohmann does
// in this project (core/json_config.h): std::out_of_range for a missing key or index,
// nlohmann::json::type_error for a type mismatch.
//
// Thread-safety: a Document is immutable after from(); any thread may read it.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>

namespace k3c::cjson {

enum class Type : uint8_t {
  kNull,
  kFalse,
  kTrue,
  kInteger,
  kUnsigned,
  kFloat,
  kString,
  kArray,
  kObject
};

// How a member's node names its key.
enum class KeyForm : uint8_t {
  kNone,    // an array element or the root
  kKnown,   // key: an index into known_keys()
  kInline,  // key: a byte offset of the strings; key_length bytes
  kLong,    // key: a byte offset of the strings: a 4-byte length, then the bytes (> 65,535)
};

struct Node {
  Type type = Type::kNull;
  KeyForm key_form = KeyForm::kNone;
  uint16_t key_length = 0;
  uint32_t key = 0;
  // Numbers: their bits. Strings: byte offset (low half) and length (high half). Arrays and
  // objects: the first child's index (low half) and the count (high half).
  uint64_t payload = 0;

  uint32_t offset() const { return static_cast<uint32_t>(payload); }
  uint32_t count() const { return static_cast<uint32_t>(payload >> 32); }
};
static_assert(sizeof(Node) == 16);

class Value;

// The keys a document names by number: sorted, unique, never changed while documents exist.
std::span<const std::string_view> known_keys();

class Document {
 public:
  // The document of `json` (any JSON value). Throws std::length_error past 4 GiB of strings
  // or 2^32 nodes.
  static std::shared_ptr<const Document> from(const nlohmann::json& json);

  Value root() const;
  // Bytes held (the block and this object): what the document costs in memory.
  size_t bytes() const { return sizeof(*this) + node_count_ * sizeof(Node) + string_bytes_; }

 private:
  friend class Value;
  friend class Builder;
  Document() = default;
  const Node* nodes() const { return reinterpret_cast<const Node*>(block_.get()); }
  const char* strings() const { return block_.get() + node_count_ * sizeof(Node); }

  std::unique_ptr<char[]> block_;
  uint32_t node_count_ = 0;
  size_t string_bytes_ = 0;
};

class Value {
 public:
  class Iterator;
  Value(const Document* doc, const Node* node) : doc_(doc), node_(node) {}

  bool is_null() const { return node_->type == Type::kNull; }
  bool is_boolean() const { return node_->type == Type::kFalse || node_->type == Type::kTrue; }
  bool is_number_integer() const {
    return node_->type == Type::kInteger || node_->type == Type::kUnsigned;
  }
  bool is_number_unsigned() const { return node_->type == Type::kUnsigned; }
  bool is_number_float() const { return node_->type == Type::kFloat; }
  bool is_number() const { return is_number_integer() || is_number_float(); }
  bool is_string() const { return node_->type == Type::kString; }
  bool is_array() const { return node_->type == Type::kArray; }
  bool is_object() const { return node_->type == Type::kObject; }
  bool is_structured() const { return is_array() || is_object(); }
  bool is_primitive() const { return !is_structured(); }

  // Elements or members; 0 for null; 1 for any other scalar (as nlohmann).
  size_t size() const;
  bool empty() const { return size() == 0; }

  // Members (on anything but an object: end(), false, 0, as nlohmann's const find).
  Iterator find(std::string_view key) const;
  bool contains(std::string_view key) const;
  size_t count(std::string_view key) const { return contains(key) ? 1 : 0; }
  Value operator[](std::string_view key) const;  // throws std::out_of_range when missing
  Value at(std::string_view key) const { return (*this)[key]; }
  Value operator[](size_t index) const;  // throws std::out_of_range past the end
  Value at(size_t index) const { return (*this)[index]; }

  // The member's value when it is there, `fallback` when it is not or this is not an object;
  // a member of another type throws nlohmann::json::type_error (as nlohmann's value()).
  std::string value(std::string_view key, const char* fallback) const;
  std::string value(std::string_view key, const std::string& fallback) const;
  int64_t value(std::string_view key, int64_t fallback) const;
  int value(std::string_view key, int fallback) const;
  bool value(std::string_view key, bool fallback) const;
  double value(std::string_view key, double fallback) const;

  // Scalars as nlohmann converts them: numbers into any number type, strings into
  // std::string/std::string_view, booleans into bool; anything else throws type_error.
  template <typename T>
  T get() const;
  std::string_view text() const;  // the string; throws type_error on anything else

  // The value as an nlohmann tree, and as nlohmann's dump() would write it.
  nlohmann::json to_json() const;
  std::string dump() const { return to_json().dump(); }

  Iterator begin() const;
  Iterator end() const;
  // for (const auto& item : v.items()) item.key(), item.value(): members, or elements with
  // their index as key (as nlohmann's items()).
  class Items;
  Items items() const;

  bool operator==(const Value& other) const;
  bool operator==(const nlohmann::json& other) const;
  bool operator==(std::string_view text) const { return is_string() && this->text() == text; }
  bool operator==(const char* text) const { return *this == std::string_view(text); }

 private:
  friend class Document;
  const Node* child(uint64_t i) const { return doc_->nodes() + node_->offset() + i; }
  std::string_view string_of(const Node* n) const {
    return {doc_->strings() + n->offset(), n->count()};
  }
  std::string_view key_of(const Node* n) const;
  [[noreturn]] void type_error(const char* wanted) const;
  template <typename T>
  T number() const;
  const char* type_name() const;

  const Document* doc_;
  const Node* node_;
};

// Over an array's elements or an object's members (operator* is the value, as nlohmann).
class Value::Iterator {
 public:
  using difference_type = std::ptrdiff_t;
  using value_type = Value;
  Iterator(const Value& container, uint64_t position) : c_(container), pos_(position) {}
  Value operator*() const { return value(); }
  struct Arrow {
    Value v;
    const Value* operator->() const { return &v; }
  };
  Arrow operator->() const { return {value()}; }
  Iterator& operator++() {
    ++pos_;
    return *this;
  }
  bool operator==(const Iterator& other) const { return pos_ == other.pos_; }
  // An object member's key; an array element's index, as text (as nlohmann's items()).
  std::string key() const;
  std::string_view key_view() const;  // an object member's key without a copy ("" in arrays)
  Value value() const;

 private:
  Value c_;
  uint64_t pos_;
};

class Value::Items {
 public:
  struct Iterator {
    Value::Iterator it;
    const Value::Iterator& operator*() const { return it; }
    Iterator& operator++() {
      ++it;
      return *this;
    }
    bool operator==(const Iterator& other) const { return it == other.it; }
  };
  explicit Items(const Value& v) : v_(v) {}
  Iterator begin() const { return {v_.begin()}; }
  Iterator end() const { return {v_.end()}; }

 private:
  Value v_;  // a copy: items() of a temporary view stays valid in a range-for
};
inline Value::Items Value::items() const { return Items(*this); }

template <>
std::string Value::get<std::string>() const;
template <>
std::string_view Value::get<std::string_view>() const;
template <>
bool Value::get<bool>() const;
template <>
int64_t Value::get<int64_t>() const;
template <>
int Value::get<int>() const;
template <>
uint64_t Value::get<uint64_t>() const;
template <>
double Value::get<double>() const;
template <>
nlohmann::json Value::get<nlohmann::json>() const;

inline bool operator==(const nlohmann::json& a, const Value& b) { return b == a; }

}  // namespace k3c::cjson
