// The grpc probe's messages and verdicts (grpc_health.h), and the socket prober against a
// real gRPC health server (nghttp2's server side, test/fakes/grpc_health_service.h) on a
// loopback port, a silent peer and a closed port.
#include "roles/kubelet/pods/grpc_health.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <thread>

#include "fakes/grpc_health_service.h"

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
  CHECK_FALSE(decode_response(std::string("\0\0\0\0\5\x08", 6)).is_ok());    // truncated
  CHECK_FALSE(decode_response(std::string("\1\0\0\0\2\x08\1", 7)).is_ok());  // compressed
  CHECK_FALSE(decode_response(framed("\x0a\x01x")).is_ok());                 // status as a string
  CHECK_FALSE(decode_response(framed("\x08")).is_ok());                      // a cut varint
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
  CHECK(verdict(not_found, at, 1s)
            .output.rfind("error: this server does not implement the grpc health protocol", 0) ==
        0);
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

// A loopback listener on a free port; each connection is served by `serve` in a thread of
// its own, one after the other, until the destructor.
struct LoopbackServer {
  int fd = -1;
  int port = 0;
  std::thread thread;
  template <typename Serve>
  explicit LoopbackServer(Serve serve) {
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    REQUIRE(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    REQUIRE(listen(fd, 4) == 0);
    getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    port = ntohs(addr.sin_port);
    thread = std::thread([this, serve] {
      for (;;) {
        const int c = accept(fd, nullptr, nullptr);
        if (c < 0) return;
        serve(c);
        close(c);
      }
    });
  }
  ~LoopbackServer() {
    shutdown(fd, SHUT_RDWR);
    close(fd);
    thread.join();
  }
};

TEST_CASE("the socket prober speaks Health/Check over HTTP/2 to a real gRPC server") {
  std::atomic<int> status{kServing};
  k3c::testing::GrpcHealthService service([&](const std::string& name) {
    return name == "missing" ? -5 : status.load();  // NotFound for that service
  });
  LoopbackServer server([&](int fd) { service.serve(fd); });
  SocketProbeNetwork network;
  auto served = network.grpc("127.0.0.1", server.port, "app", 2s);
  INFO(served.output);
  CHECK(served.success);
  CHECK(served.output == "service healthy");
  CHECK(service.last_service() == "app");
  status = kNotServing;
  auto down = network.grpc("127.0.0.1", server.port, "", 2s);
  CHECK_FALSE(down.success);
  CHECK(down.output == "service unhealthy (responded with \"NOT_SERVING\")");
  CHECK(service.last_service().empty());
  CHECK(network.grpc("127.0.0.1", server.port, "missing", 2s).output ==
        "error: health rpc probe failed: rpc error: code = NotFound desc = unknown service");
}

TEST_CASE("the socket prober: a silent peer and a closed port fail within the timeout") {
  // Accepts, reads, says nothing: no HTTP/2 settings, so no transport within the deadline.
  LoopbackServer silent([](int fd) {
    char buf[256];
    while (recv(fd, buf, sizeof buf, 0) > 0) {
    }
  });
  SocketProbeNetwork network;
  const auto before = std::chrono::steady_clock::now();
  auto quiet = network.grpc("127.0.0.1", silent.port, "", 300ms);
  CHECK(std::chrono::steady_clock::now() - before < 2s);
  CHECK(quiet.output ==
        "timeout: failed to connect service \"127.0.0.1:" + std::to_string(silent.port) +
            "\" within 300ms: context deadline exceeded");
  int closed_port = 0;
  {
    LoopbackServer gone([](int) {});
    closed_port = gone.port;
  }
  auto refused = network.grpc("127.0.0.1", closed_port, "", 300ms);
  CHECK_FALSE(refused.success);
  CHECK(refused.output.rfind("timeout: failed to connect service", 0) == 0);
}

}  // namespace
}  // namespace k3c::kubelet::grpc_health
