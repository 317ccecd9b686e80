// The grpc probe's messages and verdicts (grpc_health.h), and the socket prober against a
// loopback port where nothing listens.
#include "roles/kubelet/pods/grpc_health.h"

#include <catch2/catch.hpp>

namespace k3c::kubelet::grpc_health {
namespace {

using namespace std::chrono_literals;

// A gRPC message around protobuf `bytes`.
std::string framed(const std::string& bytes) {
  return std::string("\0\0\0\0", 4) + static_cast<char>(bytes.size()) + bytes;
}

CallResult answered(const std::string& body, int grpc_status = 0, std::string message = "") {
  CallResult r;
  r.connected = true;
  r.http_status = 200;
  r.grpc_status = grpc_status;
  r.grpc_message = std::move(message);
  r.body = body;
  return r;
}

TEST_CASE("HealthCheckRequest: the service name as field 1, nothing for the empty name") {
  CHECK(encode_request("") == std::string("\0\0\0\0\0", 5));
  CHECK(encode_request("app") == std::string("\0\0\0\0\5\x0a\3app", 10));
}

TEST_CASE("HealthCheckResponse: the status field, unknown fields skipped, bad messages refused") {
  CHECK(*decode_response(framed("\x08\x01")) == kServing);
  CHECK(*decode_response(framed("\x08\x02")) == kNotServing);
  CHECK(*decode_response(framed("")) == kUnknown);  // proto3's zero is not sent
  // An unknown string field 2 before the status.
  CHECK(*decode_response(framed(std::string("\x12\x02hi\x08\x03", 6))) == kServiceUnknown);
  CHECK_FALSE(decode_response("").is_ok());
  CHECK_FALSE(decode_response(std::string("\0\0\0\0\5\x08", 6)).is_ok());  // truncated
  CHECK_FALSE(decode_response(std::string("\1\0\0\0\2\x08\1", 7)).is_ok());  // compressed
  CHECK_FALSE(decode_response(framed("\x0a\x01x")).is_ok());  // status as a string
  CHECK_FALSE(decode_response(framed("\x08")).is_ok());       // a cut varint
}

TEST_CASE("the verdict: SERVING succeeds, the rest fails with upstream's messages") {
  const std::string at = "10.42.0.7:9000";
  CHECK(verdict(answered(framed("\x08\x01")), at, 1s).success);
  CHECK(verdict(answered(framed("\x08\x01")), at, 1s).output == "service healthy");
  auto not_serving = verdict(answered(framed("\x08\x02")), at, 1s);
  CHECK_FALSE(not_serving.success);
  CHECK(not_serving.output == "service unhealthy (responded with \"NOT_SERVING\")");
  CHECK(verdict(answered(framed("")), at, 1s).output ==
        "service unhealthy (responded with \"UNKNOWN\")");
  CHECK(verdict(answered(framed("\x08\x07")), at, 1s).output ==
        "service unhealthy (responded with \"7\")");

  CallResult refused;
  CHECK(verdict(refused, at, 2s).output ==
        "timeout: failed to connect service \"10.42.0.7:9000\" within 2s: context deadline "
        "exceeded");
  CHECK(verdict(answered("", 12, "unknown service grpc.health.v1.Health"), at, 1s).output ==
        "error: this server does not implement the grpc health protocol "
        "(grpc.health.v1.Health): unknown service grpc.health.v1.Health");
  CHECK(verdict(answered("", 5, "unknown service"), at, 1s).output ==
        "error: health rpc probe failed: rpc error: code = NotFound desc = unknown service");
  CallResult late = answered("");
  late.grpc_status.reset();
  late.timed_out = true;
  CHECK(verdict(late, at, 90s).output == "timeout: health rpc did not complete within 1m30s");
  CallResult not_found = answered("");
  not_found.http_status = 404;
  not_found.grpc_status.reset();
  CHECK(verdict(not_found, at, 1s).output.rfind(
            "error: this server does not implement the grpc health protocol", 0) == 0);
  CallResult reset;
  reset.connected = true;
  reset.transport_error = "error reading from server: EOF";
  CHECK(verdict(reset, at, 1s).output ==
        "error: health rpc probe failed: rpc error: code = Unavailable desc = error reading from "
        "server: EOF");
}

TEST_CASE("grpc-message is percent-decoded") {
  CHECK(percent_decode("a%20b%25c%zz") == "a b%c%zz");
  CHECK(percent_decode("%") == "%");
}

TEST_CASE("code names as Go prints them") {
  CHECK(code_name(0) == "OK");
  CHECK(code_name(14) == "Unavailable");
  CHECK(code_name(16) == "Unauthenticated");
  CHECK(code_name(42) == "Code(42)");
}

}  // namespace
}  // namespace k3c::kubelet::grpc_health
