// The port-forward tunnel over in-memory pipes against a TCP echo server on loopback:
// stream pairing by requestid, data both ways, half-close, dial failures on the error
// stream, resets, the connection bound, malformed SPDY and the WebSocket tunnel.
#include "streaming/port_forward.h"

#include <catch2/catch.hpp>
#include <map>
#include <thread>

#include "fakes/echo_tcp_server.h"
#include "streaming/testing/protocol_clients.h"

namespace k3c::streaming {
namespace {

using namespace std::chrono_literals;
using testing::SpdyClient;

struct Tunnel {
  std::unique_ptr<http::Duplex> server, client;
  std::thread thread;
  std::atomic<bool> done{false};
  PortForwardOptions options;
  PortDialer dial;
  Tunnel(PortForwardOptions o, PortDialer d) : options(std::move(o)), dial(std::move(d)) {
    auto [a, b] = http::make_pipe();
    server = std::move(a);
    client = std::move(b);
    thread = std::thread([this] {
      run_port_forward(*server, options, dial);
      done = true;
    });
  }
  ~Tunnel() {
    client->close();
    thread.join();
  }
};

PortDialer loopback(const std::string& why_not = "") {
  return [why_not](uint16_t port) -> Result<int> {
    if (!why_not.empty()) return error(Code::kServiceUnavailable, why_not);
    int fd = k3c::testing::connect_loopback(port);
    if (fd < 0) return error(Code::kServiceUnavailable, "connection refused");
    return fd;
  };
}

// Reads frames until `id` has seen FIN, gathering its data.
std::string until_fin(SpdyClient& c, uint32_t id,
                      std::map<uint32_t, std::string>* others = nullptr) {
  std::string out;
  for (;;) {
    auto f = c.next(10s);
    if (!f) return out + "<no FIN>";
    if (f->type != spdy::FrameType::kData) continue;
    if (f->stream_id != id) {
      if (others) (*others)[f->stream_id] += f->data;
      continue;
    }
    out += f->data;
    if (f->fin()) return out;
  }
}

TEST_CASE("two forwarded connections are paired by requestid and echo independently") {
  k3c::testing::EchoTcpServer echo("hi:");
  Tunnel t({.pod = "sb1"}, loopback());
  SpdyClient c(*t.client);
  const std::string port = std::to_string(echo.port());
  uint32_t e0 = c.open({{"streamtype", "error"}, {"port", port}, {"requestid", "0"}});
  c.data(e0, "", true);  // kubectl closes its side of the error stream at once
  uint32_t d0 = c.open({{"streamtype", "data"}, {"port", port}, {"requestid", "0"}});
  uint32_t e1 = c.open({{"streamtype", "error"}, {"port", port}, {"requestid", "1"}});
  uint32_t d1 = c.open({{"streamtype", "data"}, {"port", port}, {"requestid", "1"}});
  c.data(d0, "zero", true);
  c.data(d1, "one", true);
  // The two connections' frames interleave: gather both until each has seen FIN.
  std::map<uint32_t, std::string> data;
  std::map<uint32_t, bool> fin;
  while (!fin[d0] || !fin[d1]) {
    auto f = c.next(10s);
    REQUIRE(f);
    if (f->type != spdy::FrameType::kData) continue;
    data[f->stream_id] += f->data;
    fin[f->stream_id] = fin[f->stream_id] || f->fin();
  }
  CHECK(data[d0] == "hi:zero");
  CHECK(data[d1] == "hi:one");
  (void)e1;
  CHECK(echo.connections() == 2);
}

TEST_CASE("a dial failure is written on the error stream, then both streams end") {
  Tunnel t({.pod = "sb1"}, loopback("connection refused by the test"));
  SpdyClient c(*t.client);
  uint32_t e = c.open({{"streamtype", "error"}, {"port", "80"}, {"requestid", "0"}});
  c.open({{"streamtype", "data"}, {"port", "80"}, {"requestid", "0"}});
  CHECK(until_fin(c, e) ==
        "error forwarding port 80 to pod sb1, uid : connection refused by the test");
  // An unparsable port is the same kind of failure.
  uint32_t e2 = c.open({{"streamtype", "error"}, {"port", "http"}, {"requestid", "1"}});
  c.open({{"streamtype", "data"}, {"port", "http"}, {"requestid", "1"}});
  CHECK(until_fin(c, e2) == "invalid port \"http\"");
}

TEST_CASE("a reset data stream closes the pod-side socket; the tunnel lives on") {
  k3c::testing::EchoTcpServer echo;
  Tunnel t({.pod = "sb1"}, loopback());
  SpdyClient c(*t.client);
  const std::string port = std::to_string(echo.port());
  c.open({{"streamtype", "error"}, {"port", port}, {"requestid", "0"}});
  uint32_t d = c.open({{"streamtype", "data"}, {"port", port}, {"requestid", "0"}});
  c.data(d, "abc");
  for (int i = 0; i < 50 && echo.open() == 0; ++i) std::this_thread::sleep_for(20ms);
  REQUIRE(echo.open() == 1);
  spdy::Frame rst;
  rst.type = spdy::FrameType::kRstStream;
  rst.stream_id = d;
  rst.value = spdy::kCancel;
  c.send(rst);
  for (int i = 0; i < 100 && echo.open() > 0; ++i) std::this_thread::sleep_for(20ms);
  CHECK(echo.open() == 0);
  CHECK_FALSE(t.done);
}

TEST_CASE("connections past the bound are refused; malformed SPDY ends the tunnel") {
  k3c::testing::EchoTcpServer echo;
  Tunnel t({.pod = "sb1", .max_connections = 1}, loopback());
  SpdyClient c(*t.client);
  const std::string port = std::to_string(echo.port());
  c.open({{"streamtype", "error"}, {"port", port}, {"requestid", "0"}});
  c.open({{"streamtype", "data"}, {"port", port}, {"requestid", "0"}});
  uint32_t refused = c.open({{"streamtype", "error"}, {"port", port}, {"requestid", "1"}});
  bool reset = false;
  while (auto f = c.next(2s)) {
    if (f->type == spdy::FrameType::kRstStream && f->stream_id == refused) {
      CHECK(f->value == spdy::kRefusedStream);
      reset = true;
      break;
    }
  }
  CHECK(reset);
  c.raw(std::string("\x80\x07\x00\x01\x00\x00\x00\x04\x00\x00\x00\x01", 12));  // version 7
  bool goaway = false;
  while (auto f = c.next(2s)) goaway = goaway || f->type == spdy::FrameType::kGoAway;
  CHECK(goaway);
  for (int i = 0; i < 50 && !t.done; ++i) std::this_thread::sleep_for(20ms);
  CHECK(t.done);
  for (int i = 0; i < 100 && echo.open() > 0; ++i) std::this_thread::sleep_for(20ms);
  CHECK(echo.open() == 0);  // the forwarded connection was closed with the tunnel
}

TEST_CASE("the handshake: SPDY/3.1 with portforward.k8s.io, or SPDY in a WebSocket") {
  http::Request spdy;
  spdy.method = "POST";
  spdy.headers = {{"connection", "Upgrade"},
                  {"upgrade", "SPDY/3.1"},
                  {"x-stream-protocol-version", "portforward.k8s.io"}};
  auto r = serve_port_forward(spdy, {}, loopback());
  CHECK(r.status == 101);
  CHECK(r.headers == std::vector<std::pair<std::string, std::string>>{
                         {"Connection", "Upgrade"},
                         {"Upgrade", "SPDY/3.1"},
                         {"X-Stream-Protocol-Version", "portforward.k8s.io"}});
  http::Request ws = testing::websocket_request("SPDY/3.1+portforward.k8s.io");
  auto w = serve_port_forward(ws, {}, loopback());
  REQUIRE(w.status == 101);
  CHECK(w.headers.back().second == "SPDY/3.1+portforward.k8s.io");

  // Over the WebSocket: SPDY bytes cut into messages at odd places.
  k3c::testing::EchoTcpServer echo;
  auto [a, b] = http::make_pipe();
  std::thread server([&, u = w.upgrade, d = a.get()] { u(*d); });
  auto [ca, cb] = http::make_pipe();  // the client's SPDY bytes, before WebSocket framing
  SpdyClient c(*ca);
  const std::string port = std::to_string(echo.port());
  c.open({{"streamtype", "error"}, {"port", port}, {"requestid", "0"}});
  uint32_t d = c.open({{"streamtype", "data"}, {"port", port}, {"requestid", "0"}});
  c.data(d, "through", true);
  char buf[7];
  std::string spdy_bytes;
  while (auto n = cb->read_some(buf, sizeof buf, 100ms)) {
    if (!n.is_ok() || *n == 0) break;
    REQUIRE(b->write_all(testing::client_frame(0x2, std::string(buf, *n))).is_ok());
  }
  // Unwrap the server's messages into the client's SPDY parser.
  testing::FrameReader reader(*b);
  std::string echoed;
  bool fin = false;
  while (!fin) {
    auto m = reader.message(5s);
    REQUIRE(m);
    REQUIRE(cb->write_all(*m).is_ok());
    while (auto f = c.next(50ms)) {
      if (f->type == spdy::FrameType::kData && f->stream_id == d) {
        echoed += f->data;
        fin = f->fin();
      }
    }
  }
  CHECK(echoed == "through");
  b->close();
  server.join();
}

}  // namespace
}  // namespace k3c::streaming
