// The gRPC health checking protocol's messages and the probe's verdict (see grpc_health.h).
#include "roles/kubelet/pods/grpc_health.h"

#include <cctype>

#include "api/internal/proto_wire.h"
#include "roles/kubelet/pods/backoff.h"

namespace k3c::kubelet::grpc_health {

using api::internal::WireReader;
using api::internal::WireType;
using api::internal::WireWriter;

namespace {

constexpr size_t kPrefix = 5;  // compressed flag + 4-byte length
constexpr size_t kMaxMessage = 64 * 1024;

std::string frame(const std::string& message) {
  std::string out(kPrefix, '\0');
  const uint32_t n = static_cast<uint32_t>(message.size());
  for (int i = 0; i < 4; ++i) out[1 + i] = static_cast<char>((n >> (8 * (3 - i))) & 0xff);
  return out + message;
}

// grpc-go's code for a response whose HTTP status is not 200 (its HTTP-to-gRPC mapping).
int code_of_http_status(int http) {
  switch (http) {
    case 400:
      return 13;  // Internal
    case 401:
      return 16;  // Unauthenticated
    case 403:
      return 7;  // PermissionDenied
    case 404:
      return 12;  // Unimplemented
    case 429:
    case 502:
    case 503:
    case 504:
      return 14;  // Unavailable
    default:
      return 2;  // Unknown
  }
}

}  // namespace

std::string encode_request(std::string_view service) {
  WireWriter w;
  if (!service.empty()) w.add_bytes(1, service);  // proto3: an empty string is not sent
  return frame(w.data());
}

Result<int64_t> decode_response(std::string_view body) {
  if (body.size() < kPrefix) return error(Code::kBadRequest, "truncated gRPC message");
  if (body[0] != 0) return error(Code::kBadRequest, "compressed gRPC message (none was offered)");
  uint32_t n = 0;
  for (int i = 1; i <= 4; ++i) n = (n << 8) | static_cast<uint8_t>(body[i]);
  if (n > kMaxMessage) return error(Code::kBadRequest, "gRPC message too large");
  if (body.size() - kPrefix < n) return error(Code::kBadRequest, "truncated gRPC message");
  WireReader reader(body.substr(kPrefix, n));
  int64_t status = kUnknown;
  while (!reader.done()) {
    ASSIGN_OR_RETURN(auto field, reader.next());
    if (field.number != 1) continue;
    if (field.type != WireType::kVarint)
      return error(Code::kBadRequest, "HealthCheckResponse.status is not a varint");
    status = static_cast<int64_t>(field.value);  // the last one wins, as protobuf's
  }
  return status;
}

std::string status_name(int64_t status) {
  switch (status) {
    case kUnknown:
      return "UNKNOWN";
    case kServing:
      return "SERVING";
    case kNotServing:
      return "NOT_SERVING";
    case kServiceUnknown:
      return "SERVICE_UNKNOWN";
    default:
      return std::to_string(static_cast<int32_t>(status));
  }
}

std::string code_name(int code) {
  static const char* const kNames[] = {
      "OK",       "Canceled",       "Unknown",          "InvalidArgument",   "DeadlineExceeded",
      "NotFound", "AlreadyExists",  "PermissionDenied", "ResourceExhausted", "FailedPrecondition",
      "Aborted",  "OutOfRange",     "Unimplemented",    "Internal",          "Unavailable",
      "DataLoss", "Unauthenticated"};
  if (code >= 0 && code < static_cast<int>(std::size(kNames))) return kNames[code];
  return "Code(" + std::to_string(code) + ")";
}

std::string percent_decode(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() &&
        std::isxdigit(static_cast<unsigned char>(text[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
      out.push_back(static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

ProbeOutcome verdict(const CallResult& r, const std::string& address,
                     std::chrono::milliseconds timeout) {
  const std::string within = go_duration(timeout);
  if (!r.connected) {
    // grpc.WithBlock: the dial retries until the deadline, so a refused port ends here too.
    return {false, "timeout: failed to connect service \"" + address + "\" within " + within +
                       ": context deadline exceeded"};
  }
  auto rpc_error = [&](int code, const std::string& desc) {
    if (code == 12) {
      return ProbeOutcome{false,
                          "error: this server does not implement the grpc health protocol "
                          "(grpc.health.v1.Health): " +
                              desc};
    }
    if (code == 4)
      return ProbeOutcome{false, "timeout: health rpc did not complete within " + within};
    return ProbeOutcome{false, "error: health rpc probe failed: rpc error: code = " +
                                   code_name(code) + " desc = " + desc};
  };
  if (r.timed_out) return rpc_error(4, "context deadline exceeded");
  if (!r.transport_error.empty() && r.http_status == 0) return rpc_error(14, r.transport_error);
  if (r.http_status != 0 && r.http_status != 200) {
    return rpc_error(
        code_of_http_status(r.http_status),
        "unexpected HTTP status code received from server: " + std::to_string(r.http_status));
  }
  if (!r.grpc_status) {
    return rpc_error(13, r.transport_error.empty()
                             ? "server closed the stream without sending trailers"
                             : r.transport_error);
  }
  if (*r.grpc_status != 0) return rpc_error(*r.grpc_status, r.grpc_message);
  auto status = decode_response(r.body);
  if (!status.is_ok()) {
    return rpc_error(
        13, "grpc: failed to unmarshal the received message: " + status.status().message());
  }
  if (*status != kServing) {
    return {false, "service unhealthy (responded with \"" + status_name(*status) + "\")"};
  }
  return {true, "service healthy"};
}

}  // namespace k3c::kubelet::grpc_health
