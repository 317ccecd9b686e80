// Status and Result<T>: expected failures as values, with codes that map one-to-one onto
// Kubernetes Status reasons and HTTP codes. No exception crosses a module boundary.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace k3c {

// The error codes. Each maps to one Kubernetes StatusReason and one HTTP status code
// (see reason_of() and http_code_of()); the store's own conditions (Compacted,
// FutureRevision, StorageFull, Corrupt) map onto the reasons the apiserver answers with.
enum class Code : uint8_t {
  kOk = 0,
  kNotFound,               // 404 NotFound
  kAlreadyExists,          // 409 AlreadyExists
  kConflict,               // 409 Conflict (compare-and-swap lost)
  kInvalid,                // 422 Invalid
  kBadRequest,             // 400 BadRequest
  kUnauthorized,           // 401 Unauthorized
  kForbidden,              // 403 Forbidden
  kMethodNotAllowed,       // 405 MethodNotAllowed
  kNotAcceptable,          // 406 NotAcceptable
  kRequestEntityTooLarge,  // 413 RequestEntityTooLarge
  kUnsupportedMediaType,   // 415 UnsupportedMediaType
  kTooManyRequests,        // 429 TooManyRequests
  kGone,                   // 410 Expired ("too old resource version")
  kCompacted,              // 410 Expired: a read or watch below the compacted revision
  kFutureRevision,         // 504 Timeout: a revision newer than the store's current one
  kTimeout,                // 504 Timeout
  kInternal,               // 500 InternalError
  kStorageFull,            // 507 InsufficientStorage-like; answered as 500 InternalError
  kCorrupt,                // 500 InternalError: the datastore is damaged or not ours
  kServiceUnavailable,     // 503 ServiceUnavailable
  kNotImplemented,         // 501 NotImplemented
};

std::string_view code_name(Code code);
// The Kubernetes metav1.StatusReason for a code ("NotFound", "Expired", ...).
std::string_view reason_of(Code code);
int http_code_of(Code code);

// A success (allocates nothing) or a code with a message. `revision` is the store revision
// the error refers to, when there is one: the key's current mod revision for kConflict, the
// compacted revision for kCompacted, the store's current revision for kFutureRevision.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Code code, std::string message, int64_t revision = 0)
      : code_(code), message_(std::move(message)), revision_(revision) {}

  static Status ok() { return Status(); }

  bool is_ok() const { return code_ == Code::kOk; }
  explicit operator bool() const { return is_ok(); }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }
  int64_t revision() const { return revision_; }

  // "Conflict: key /a: expected revision 3, current 5" style, for logs and tests.
  std::string to_string() const;

 private:
  Code code_ = Code::kOk;
  std::string message_;
  int64_t revision_ = 0;
};

inline Status error(Code code, std::string message, int64_t revision = 0) {
  return Status(code, std::move(message), revision);
}

// A value or a non-ok Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {}  // NOLINT: implicit by design

  bool is_ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return is_ok(); }

  const T& value() const& { return std::get<T>(v_); }
  T& value() & { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

  // The error; an ok Status when the Result holds a value.
  Status status() const { return is_ok() ? Status() : std::get<Status>(v_); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace k3c

#define K3C_CONCAT_INNER(a, b) a##b
#define K3C_CONCAT(a, b) K3C_CONCAT_INNER(a, b)

// Returns the Status from the enclosing function when `expr` is not ok.
#define RETURN_IF_ERROR(expr)                     \
  do {                                            \
    ::k3c::Status k3c_status_ = (expr);           \
    if (!k3c_status_.is_ok()) return k3c_status_; \
  } while (0)

// `ASSIGN_OR_RETURN(auto x, f())`: binds the value or returns the error.
#define ASSIGN_OR_RETURN(lhs, expr) \
  ASSIGN_OR_RETURN_IMPL(K3C_CONCAT(k3c_result_, __LINE__), lhs, expr)
#define ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                          \
  if (!tmp.is_ok()) return tmp.status();      \
  lhs = std::move(tmp).value()
