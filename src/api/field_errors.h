// Field-level validation errors as upstream reports them (k8s.io/apimachinery's
// field.Error): a type (FieldValueRequired, ...), the field's path
// (`spec.template.spec.containers[0].image`), the bad value and a detail, rendered as
// `Required value`, `Invalid value: "x": <detail>`,
// `Unsupported value: "x": supported values: "a", "b"`. The API server turns a list of them
// into a 422 Invalid Status whose causes carry reason, message and field.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace k3c::api {

struct FieldError {
  enum class Type {
    kRequired,
    kInvalid,
    kNotSupported,
    kDuplicate,
    kForbidden,
    kTooLong,
    kTooMany,
  };
  Type type = Type::kInvalid;
  std::string field;
  nlohmann::json value;  // shown for Invalid, NotSupported, Duplicate, TooMany
  std::string detail;

  // The Status cause reason: "FieldValueRequired", "FieldValueInvalid", ...
  std::string reason() const;
  // The message without the field: "Invalid value: \"x\": must be ...".
  std::string body() const;
};

using FieldErrors = std::vector<FieldError>;

FieldError required(std::string field, std::string detail = "");
FieldError invalid(std::string field, nlohmann::json value, std::string detail);
// Supported values are listed quoted, in the order given.
FieldError not_supported(std::string field, nlohmann::json value,
                         const std::vector<std::string>& supported);
FieldError duplicate(std::string field, nlohmann::json value);
FieldError forbidden(std::string field, std::string detail);
FieldError too_long(std::string field, size_t max_bytes);

// "must be between 1 and 65535, inclusive" and its one-sided forms.
std::string range_detail(const int64_t* minimum, const int64_t* maximum);

// Child paths as upstream's field.Path prints them: "a.b", "a[0]", "a[key]".
std::string child(const std::string& path, const std::string& name);
std::string index(const std::string& path, size_t i);
std::string key(const std::string& path, const std::string& k);

}  // namespace k3c::api
