// Label and field selectors as the Kubernetes API accepts them in ?labelSelector= and
// ?fieldSelector=: parsing (with upstream's error messages) and matching.
//
//   labels:  a=b  a==b  a!=b  a in (x,y)  a notin (x)  a  !a   joined by ','
//   fields:  a=b  a==b  a!=b                                   joined by ','
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace k3c {

// Label sets are small sorted maps; field sets likewise (path -> value).
using Labels = std::map<std::string, std::string, std::less<>>;

class LabelSelector {
 public:
  enum class Op { kEquals, kNotEquals, kIn, kNotIn, kExists, kDoesNotExist };
  struct Requirement {
    std::string key;
    Op op;
    std::vector<std::string> values;
  };

  // The empty selector matches everything.
  LabelSelector() = default;
  static Result<LabelSelector> parse(std::string_view text);
  // From a metav1.LabelSelector's parts (matchLabels + matchExpressions), as used by
  // Deployments and Services; operators In, NotIn, Exists, DoesNotExist.
  static LabelSelector from_requirements(std::vector<Requirement> requirements);

  bool matches(const Labels& labels) const;
  // The same over labels held elsewhere (an object's JSON, without copying them into a
  // Labels): `value_of(key)` returns a pointer to the label's value, nullptr when absent.
  template <typename Lookup>
  bool matches_with(Lookup value_of) const;
  bool empty() const { return requirements_.empty(); }
  const std::vector<Requirement>& requirements() const { return requirements_; }

 private:
  std::vector<Requirement> requirements_;
};

template <typename Lookup>
bool LabelSelector::matches_with(Lookup value_of) const {
  for (const auto& r : requirements_) {
    auto value = value_of(r.key);  // a pointer or an optional: empty when absent
    bool in_values = value && std::find(r.values.begin(), r.values.end(), *value) != r.values.end();
    switch (r.op) {
      case Op::kEquals:
      case Op::kIn:
        if (!in_values) return false;
        break;
      case Op::kNotEquals:
      case Op::kNotIn:
        if (in_values) return false;
        break;
      case Op::kExists:
        if (!value) return false;
        break;
      case Op::kDoesNotExist:
        if (value) return false;
        break;
    }
  }
  return true;
}

class FieldSelector {
 public:
  struct Requirement {
    std::string field;
    bool equals;  // false: !=
    std::string value;
  };

  FieldSelector() = default;
  static Result<FieldSelector> parse(std::string_view text);

  // `fields` holds the values of the selectable fields of an object; a requirement on a
  // field that is not there compares against "".
  bool matches(const Labels& fields) const;
  // The same over fields held elsewhere: `value_of(field)` returns a pointer to the field's
  // value, nullptr when it is not there (compared as "").
  template <typename Lookup>
  bool matches_with(Lookup value_of) const;
  bool empty() const { return requirements_.empty(); }
  const std::vector<Requirement>& requirements() const { return requirements_; }
  // The value required by `field=value`, if the selector has such a requirement (used to
  // narrow a list to one namespace or one name).
  const std::string* required_value(std::string_view field) const;

 private:
  std::vector<Requirement> requirements_;
};

template <typename Lookup>
bool FieldSelector::matches_with(Lookup value_of) const {
  for (const auto& r : requirements_) {
    const std::string* value = value_of(r.field);
    std::string_view have = value ? std::string_view(*value) : std::string_view();
    if ((have == r.value) != r.equals) return false;
  }
  return true;
}

}  // namespace k3c
