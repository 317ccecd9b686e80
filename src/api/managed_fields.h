// Field sets for server-side apply and metadata.managedFields, in upstream's FieldsV1 form
// (sigs.k8s.io/structured-merge-diff): a path is a list of steps, each "f:<field>",
// "k:<key fields as JSON>" (an item of a listType=map list), "v:<value as JSON>" (an item of
// a listType=set list) or "i:<index>". The schemas (api/schema.h) say which lists are
// associative; a field or kind without schema data is walked as plain JSON (objects by key,
// lists atomic).
#pragma once

#include <compare>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/schema.h"
#include "core/status.h"

namespace k3c::api {

// A path: its steps in order. Held as one string, each step followed by a 0 byte (the bytes 0
// and 1 inside a step escaped as 1 1 and 1 2), so that paths sort as lists of steps do, a
// path's prefixes are its string's prefixes, and copying or comparing a path is one string's
// work: a pod's create records ~70 paths, its status write ~40.
class FieldPath {
 public:
  FieldPath() = default;
  FieldPath(std::initializer_list<std::string_view> steps) {
    for (std::string_view s : steps) push_back(s);
  }
  void push_back(std::string_view step) { push_back(step, {}); }
  // The step `head` + `tail` (a walk's "f:" and field name), without joining them first.
  void push_back(std::string_view head, std::string_view tail);
  void pop_back();
  bool empty() const { return encoded_.empty(); }
  // Whether `prefix`'s steps begin this path (a path begins itself).
  bool starts_with(const FieldPath& prefix) const { return encoded_.starts_with(prefix.encoded_); }
  // Calls fn(step) for each step in order, while it returns true; false when fn stopped it.
  template <class Fn>
  bool each_step(Fn&& fn) const;
  std::vector<std::string> steps() const;
  friend auto operator<=>(const FieldPath&, const FieldPath&) = default;

 private:
  static std::string unescaped(std::string_view step);
  std::string encoded_;
};
using FieldSet = std::set<FieldPath>;

template <class Fn>
bool FieldPath::each_step(Fn&& fn) const {
  std::string_view rest = encoded_;
  while (!rest.empty()) {
    const size_t end = rest.find('\0');
    const std::string_view step = rest.substr(0, end);
    // Escapes are for steps holding control bytes: no schema field or label has them.
    const bool go = step.find('\1') == std::string_view::npos ? fn(step) : fn(unescaped(step));
    if (!go) return false;
    rest.remove_prefix(end + 1);
  }
  return true;
}

// FieldsV1 JSON <-> set. Members are leaves (`{}`) and nodes marked with ".".
Result<FieldSet> fieldset_from_v1(const nlohmann::json& fields_v1);
nlohmann::json fieldset_to_v1(const FieldSet& set);
// The same checks and lookups on the FieldsV1 JSON itself, without making the set: whether
// fieldset_from_v1 reads it, and whether its set holds `path`.
bool fields_v1_readable(const nlohmann::json& fields_v1);
bool fields_v1_holds(const nlohmann::json& fields_v1, const FieldPath& path);
// As upstream prints a path: .spec.containers[name="web"].image, .metadata.finalizers[="x"].
std::string path_string(const FieldPath& path);

// The fields a configuration sets (upstream's ToFieldSet): scalars, atomic values, empty
// objects and lists, and the items of associative lists. kBadRequest when a list item lacks
// a key field that has no default.
Result<FieldSet> fields_of(const nlohmann::json& object, const MessageType* type);

// What changed between two versions of an object: paths only in the new one (with every
// node below them), only in the old one, and values that differ. metadata.managedFields is
// not compared.
struct Comparison {
  FieldSet added, modified, removed;
};
// Which top-level members a comparison walks: a write through the status subresource owns
// status fields only and one through the main resource none of them, so the field manager
// compares only the part a writer may own (a pod's status write walked its whole spec).
enum class CompareScope { kWhole, kStatusOnly, kAllButStatus };
Result<Comparison> compare(const nlohmann::json& old_object, const nlohmann::json& new_object,
                           const MessageType* type, CompareScope scope = CompareScope::kWhole);

// Merges an applied configuration into a live object the way server-side apply does:
// objects merge by key, listType=map lists by their keys, listType=set lists become unions,
// everything else (atomic lists, scalars) is replaced by the configuration's value.
Result<nlohmann::json> merge_applied(const nlohmann::json& live, const nlohmann::json& config,
                                     const MessageType* type);

// Removes the value at each path (a field, or an item of an associative list).
nlohmann::json remove_paths(nlohmann::json object, const FieldSet& paths, const MessageType* type);

}  // namespace k3c::api
