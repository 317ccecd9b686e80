// Names, Kubernetes reasons and HTTP codes of the Status codes.
#include "core/status.h"

namespace k3c {

std::string_view code_name(Code code) {
  switch (code) {
    case Code::kOk:
      return "OK";
    case Code::kNotFound:
      return "NotFound";
    case Code::kAlreadyExists:
      return "AlreadyExists";
    case Code::kConflict:
      return "Conflict";
    case Code::kInvalid:
      return "Invalid";
    case Code::kBadRequest:
      return "BadRequest";
    case Code::kUnauthorized:
      return "Unauthorized";
    case Code::kForbidden:
      return "Forbidden";
    case Code::kMethodNotAllowed:
      return "MethodNotAllowed";
    case Code::kNotAcceptable:
      return "NotAcceptable";
    case Code::kRequestEntityTooLarge:
      return "RequestEntityTooLarge";
    case Code::kUnsupportedMediaType:
      return "UnsupportedMediaType";
    case Code::kTooManyRequests:
      return "TooManyRequests";
    case Code::kGone:
      return "Gone";
    case Code::kCompacted:
      return "Compacted";
    case Code::kFutureRevision:
      return "FutureRevision";
    case Code::kTimeout:
      return "Timeout";
    case Code::kInternal:
      return "Internal";
    case Code::kStorageFull:
      return "StorageFull";
    case Code::kCorrupt:
      return "Corrupt";
    case Code::kServiceUnavailable:
      return "ServiceUnavailable";
    case Code::kNotImplemented:
      return "NotImplemented";
  }
  return "Unknown";
}

std::string_view reason_of(Code code) {
  switch (code) {
    case Code::kOk:
      return "";
    case Code::kGone:
    case Code::kCompacted:
      return "Expired";
    case Code::kFutureRevision:
      return "Timeout";
    case Code::kInternal:
    case Code::kStorageFull:
    case Code::kCorrupt:
      return "InternalError";
    case Code::kNotImplemented:
      return "NotImplemented";
    default:
      return code_name(code);
  }
}

int http_code_of(Code code) {
  switch (code) {
    case Code::kOk:
      return 200;
    case Code::kNotFound:
      return 404;
    case Code::kAlreadyExists:
    case Code::kConflict:
      return 409;
    case Code::kInvalid:
      return 422;
    case Code::kBadRequest:
      return 400;
    case Code::kUnauthorized:
      return 401;
    case Code::kForbidden:
      return 403;
    case Code::kMethodNotAllowed:
      return 405;
    case Code::kNotAcceptable:
      return 406;
    case Code::kRequestEntityTooLarge:
      return 413;
    case Code::kUnsupportedMediaType:
      return 415;
    case Code::kTooManyRequests:
      return 429;
    case Code::kGone:
    case Code::kCompacted:
      return 410;
    case Code::kFutureRevision:
    case Code::kTimeout:
      return 504;
    case Code::kInternal:
    case Code::kStorageFull:
    case Code::kCorrupt:
      return 500;
    case Code::kServiceUnavailable:
      return 503;
    case Code::kNotImplemented:
      return 501;
  }
  return 500;
}

std::string Status::to_string() const {
  if (is_ok()) return "OK";
  std::string s(code_name(code_));
  s += ": ";
  s += message_;
  return s;
}

}  // namespace k3c
