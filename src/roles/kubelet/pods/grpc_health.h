// The gRPC health checking protocol as the kubelet's grpc probe speaks it
// (grpc.health.v1.Health/Check, https://github.com/grpc/grpc/blob/master/doc/health-checking.md):
// the request and response messages in gRPC's length-prefixed framing, and the verdict with
// upstream's wording (pkg/probe/grpc): SERVING succeeds, anything else fails. Pure code: the
// HTTP/2 exchange is probe_network_grpc.cpp's.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"
#include "roles/kubelet/pods/probes.h"

namespace k3c::kubelet::grpc_health {

inline constexpr char kCheckPath[] = "/grpc.health.v1.Health/Check";

// HealthCheckResponse.ServingStatus.
enum ServingStatus : int64_t { kUnknown = 0, kServing = 1, kNotServing = 2, kServiceUnknown = 3 };

// A HealthCheckRequest{service} as one uncompressed gRPC message (flag byte, big-endian
// length, protobuf).
std::string encode_request(std::string_view service);

// The status of the first HealthCheckResponse in a response body (gRPC framing); kBadRequest
// for a truncated or compressed message or bad protobuf. Unknown fields are skipped; a
// missing status field is UNKNOWN (proto3's zero).
Result<int64_t> decode_response(std::string_view body);

// The status's name as Go's generated code prints it ("NOT_SERVING"; the number when unknown).
std::string status_name(int64_t status);

// A gRPC status code's name as Go prints it ("Unimplemented"); "Code(<n>)" when unknown.
std::string code_name(int code);

// What one Check call ended with, as the HTTP/2 client saw it.
struct CallResult {
  bool connected = false;       // a transport came up (TCP, then the server's HTTP/2 SETTINGS)
  bool timed_out = false;       // the deadline passed first
  std::string transport_error;  // a failure after connecting (connection reset, GOAWAY ...)
  int http_status = 0;          // :status; 0 when no headers came
  std::optional<int> grpc_status;
  std::string grpc_message;  // percent-decoded
  std::string body;          // the DATA frames
};

// The probe's outcome for `result` (address "host:port", with brackets for IPv6).
ProbeOutcome verdict(const CallResult& result, const std::string& address,
                     std::chrono::milliseconds timeout);

// grpc-message is percent-encoded (%XX for bytes outside printable ASCII and '%').
std::string percent_decode(std::string_view text);

}  // namespace k3c::kubelet::grpc_health
