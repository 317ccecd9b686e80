// WebSocket server framing over in-memory pipes: the handshake, masking, fragments,
// ping/pong, the close handshake, limits and malformed input.
#include "streaming/websocket.h"

#include <catch2/catch.hpp>
#include <thread>

#include "streaming/testing/protocol_clients.h"

namespace k3c::streaming {
namespace {

using namespace std::chrono_literals;
using testing::client_frame;
using testing::FrameReader;

http::Request upgrade_request(const std::string& protocols) {
  return testing::websocket_request(protocols);
}

TEST_CASE("the handshake answers RFC 6455's accept key and the preferred subprotocol") {
  CHECK(websocket_accept("dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
  auto req = upgrade_request("v4.channel.k8s.io, v5.channel.k8s.io,base64.channel.k8s.io");
  CHECK(choose_subprotocol(req, {"v5.channel.k8s.io", "v4.channel.k8s.io"}) == "v5.channel.k8s.io");
  CHECK(choose_subprotocol(req, {"SPDY/3.1+portforward.k8s.io"}) == std::nullopt);
  auto answer = websocket_handshake(req, "v5.channel.k8s.io");
  REQUIRE(answer.is_ok());
  CHECK(answer->status == 101);
  CHECK(answer->headers == std::vector<std::pair<std::string, std::string>>{
                               {"Upgrade", "websocket"},
                               {"Connection", "Upgrade"},
                               {"Sec-WebSocket-Accept", "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="},
                               {"Sec-WebSocket-Protocol", "v5.channel.k8s.io"}});
  auto no_key = upgrade_request("v5.channel.k8s.io");
  no_key.headers[3].second = "short";
  CHECK(websocket_handshake(no_key, "v5.channel.k8s.io").status().code() == Code::kBadRequest);
  auto post = upgrade_request("x");
  post.method = "POST";
  CHECK_FALSE(is_websocket_request(post));
}

TEST_CASE("masked fragments are joined; pings are answered in between; close is answered") {
  auto [server_end, client_end] = http::make_pipe(1 << 20);
  WebSocket ws(*server_end);
  FrameReader reader(*client_end);
  // A message in three fragments with a ping between, delivered a byte at a time.
  std::string wire = client_frame(0x2, "hel", false) + client_frame(0x9, "beat") +
                     client_frame(0x0, "lo ", false) + client_frame(0x0, "world");
  std::thread writer([&, c = client_end.get()] {
    for (char ch : wire) REQUIRE(c->write_all(std::string(1, ch)).is_ok());
  });
  auto m = ws.read_message(5s);
  writer.join();
  REQUIRE(m.is_ok());
  REQUIRE(m->has_value());
  CHECK(**m == "hello world");
  auto pong = reader.next();
  REQUIRE(pong);
  CHECK(pong->opcode == 0xA);
  CHECK(pong->payload == "beat");

  // Server messages are unmasked binary frames, lengths in all three encodings.
  for (size_t size : {5, 300, 70000}) {
    REQUIRE(ws.send_binary(std::string(size, 'x')).is_ok());
    auto f = reader.next();
    REQUIRE(f);
    CHECK(f->opcode == 0x2);
    CHECK(f->payload.size() == size);
  }

  REQUIRE(client_end->write_all(client_frame(0x8, std::string("\x03\xe8", 2))).is_ok());
  auto closed = ws.read_message(5s);
  REQUIRE(closed.is_ok());
  CHECK_FALSE(closed->has_value());
  CHECK(ws.peer_closed());
  auto answer = reader.next();
  REQUIRE(answer);
  CHECK(answer->opcode == 0x8);
  CHECK(answer->payload.substr(0, 2) == std::string("\x03\xe8", 2));
  CHECK(ws.send_binary("late").code() == Code::kServiceUnavailable);
}

TEST_CASE("a partial frame survives a timeout and completes on the next call") {
  auto [server_end, client_end] = http::make_pipe();
  WebSocket ws(*server_end);
  std::string frame = client_frame(0x2, "abcdef");
  REQUIRE(client_end->write_all(frame.substr(0, 4)).is_ok());
  CHECK(ws.read_message(50ms).status().code() == Code::kTimeout);
  REQUIRE(client_end->write_all(frame.substr(4)).is_ok());
  auto m = ws.read_message(1s);
  REQUIRE(m.is_ok());
  CHECK(**m == "abcdef");
  // The peer vanishing without a close frame is an end, not an error.
  client_end->close();
  auto end = ws.read_message(1s);
  REQUIRE(end.is_ok());
  CHECK_FALSE(end->has_value());
}

struct BadCase {
  const char* what;
  std::string wire;
  uint16_t close_code;
};

TEST_CASE("protocol violations end the connection with the right close code") {
  std::vector<BadCase> cases = {
      {"unmasked client frame", client_frame(0x2, "x", true, false), 1002},
      {"text message", client_frame(0x1, "hi"), 1003},
      {"reserved bits", std::string("\xC2\x80\0\0\0\0", 6), 1002},
      {"unknown opcode", client_frame(0x3, ""), 1002},
      {"fragmented ping", client_frame(0x9, "p", false), 1002},
      {"continuation first", client_frame(0x0, "x"), 1002},
      {"oversize message", client_frame(0x2, std::string(2000, 'a')), 1009},
      {"oversize by fragments",
       client_frame(0x2, std::string(600, 'a'), false) + client_frame(0x0, std::string(600, 'a')),
       1009},
  };
  for (const BadCase& c : cases) {
    INFO(c.what);
    auto [server_end, client_end] = http::make_pipe();
    WebSocket ws(*server_end, {.max_message = 1000, .allow_text = false});
    FrameReader reader(*client_end);
    REQUIRE(client_end->write_all(c.wire).is_ok());
    auto m = ws.read_message(1s);
    CHECK(m.status().code() == Code::kBadRequest);
    auto close = reader.next();
    REQUIRE(close);
    CHECK(close->opcode == 0x8);
    REQUIRE(close->payload.size() >= 2);
    CHECK(((uint8_t(close->payload[0]) << 8) | uint8_t(close->payload[1])) == c.close_code);
  }
}

TEST_CASE("a WebSocketDuplex carries a byte stream in binary messages") {
  auto [server_end, client_end] = http::make_pipe();
  WebSocket ws(*server_end);
  WebSocketDuplex tunnel(ws, *server_end);
  REQUIRE(client_end->write_all(client_frame(0x2, "abc") + client_frame(0x2, "defg")).is_ok());
  std::string got;
  char buf[2];
  while (got.size() < 7) {
    auto n = tunnel.read_some(buf, sizeof buf, 1s);
    REQUIRE(n.is_ok());
    REQUIRE(*n > 0);
    got.append(buf, *n);
  }
  CHECK(got == "abcdefg");
  REQUIRE(tunnel.write_all("xyz").is_ok());
  FrameReader reader(*client_end);
  CHECK(reader.message() == "xyz");
  tunnel.close();
  auto close = reader.next();
  REQUIRE(close);
  CHECK(close->opcode == 0x8);
}

}  // namespace
}  // namespace k3c::streaming
