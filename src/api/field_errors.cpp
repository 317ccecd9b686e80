// Field errors in upstream's words (see field_errors.h).
#include "api/field_errors.h"

namespace k3c::api {

using nlohmann::json;

namespace {

const char* type_words(FieldError::Type t) {
  switch (t) {
    case FieldError::Type::kRequired:
      return "Required value";
    case FieldError::Type::kInvalid:
      return "Invalid value";
    case FieldError::Type::kNotSupported:
      return "Unsupported value";
    case FieldError::Type::kDuplicate:
      return "Duplicate value";
    case FieldError::Type::kForbidden:
      return "Forbidden";
    case FieldError::Type::kTooLong:
      return "Too long";
    case FieldError::Type::kTooMany:
      return "Too many";
  }
  return "Invalid value";
}

// As Go prints the value: numbers and booleans plainly, strings quoted, anything else as
// JSON.
std::string show(const json& v) { return v.dump(); }

}  // namespace

std::string FieldError::reason() const {
  switch (type) {
    case Type::kRequired:
      return "FieldValueRequired";
    case Type::kInvalid:
      return "FieldValueInvalid";
    case Type::kNotSupported:
      return "FieldValueNotSupported";
    case Type::kDuplicate:
      return "FieldValueDuplicate";
    case Type::kForbidden:
      return "FieldValueForbidden";
    case Type::kTooLong:
      return "FieldValueTooLong";
    case Type::kTooMany:
      return "FieldValueTooMany";
  }
  return "FieldValueInvalid";
}

std::string FieldError::body() const {
  std::string s = type_words(type);
  bool shows_value = type == Type::kInvalid || type == Type::kNotSupported ||
                     type == Type::kDuplicate || type == Type::kTooMany;
  if (shows_value) s += ": " + show(value);
  if (!detail.empty()) s += ": " + detail;
  return s;
}

FieldError required(std::string field, std::string detail) {
  return {FieldError::Type::kRequired, std::move(field), "", std::move(detail)};
}

FieldError invalid(std::string field, json value, std::string detail) {
  return {FieldError::Type::kInvalid, std::move(field), std::move(value), std::move(detail)};
}

FieldError not_supported(std::string field, json value, const std::vector<std::string>& supported) {
  std::string detail;
  for (const auto& v : supported) {
    detail += detail.empty() ? "supported values: " : ", ";
    detail += json(v).dump();
  }
  return {FieldError::Type::kNotSupported, std::move(field), std::move(value), std::move(detail)};
}

FieldError duplicate(std::string field, json value) {
  return {FieldError::Type::kDuplicate, std::move(field), std::move(value), ""};
}

FieldError forbidden(std::string field, std::string detail) {
  return {FieldError::Type::kForbidden, std::move(field), "", std::move(detail)};
}

FieldError too_long(std::string field, size_t max_bytes) {
  return {FieldError::Type::kTooLong, std::move(field), "",
          "may not be more than " + std::to_string(max_bytes) + " bytes"};
}

std::string range_detail(const int64_t* minimum, const int64_t* maximum) {
  if (minimum && maximum) {
    return "must be between " + std::to_string(*minimum) + " and " + std::to_string(*maximum) +
           ", inclusive";
  }
  if (minimum) return "must be greater than or equal to " + std::to_string(*minimum);
  if (maximum) return "must be less than or equal to " + std::to_string(*maximum);
  return "";
}

std::string child(const std::string& path, const std::string& name) {
  return path.empty() ? name : path + "." + name;
}
std::string index(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}
std::string key(const std::string& path, const std::string& k) { return path + "[" + k + "]"; }

}  // namespace k3c::api
