// WebSocket (RFC 6455), the server side, as kubectl's exec/attach (v5.channel.k8s.io) and
// port-forward (SPDY/3.1+portforward.k8s.io) use it: the opening handshake answered from an
// http::Request, then binary messages over an http::Duplex. Client frames must be masked;
// fragments are joined; pings are answered with pongs inside read_message(); a close frame
// is answered and ends the stream; text frames and messages over the size limit end it with
// the close codes 1003 and 1009. See doc/streaming.md.
//
// Thread-safety: one reader thread (read_message) and any number of writers (send_*), which
// a mutex serializes.
#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "http/duplex.h"
#include "http/http.h"

namespace k3c::streaming {

// base64(sha1(key + the RFC's GUID)).
std::string websocket_accept(std::string_view client_key);
// A GET asking for "Upgrade: websocket".
bool is_websocket_request(const http::Request& request);
// The first of `supported` (in the server's order of preference) that the client offers in
// Sec-WebSocket-Protocol; nullopt when none.
std::optional<std::string> choose_subprotocol(const http::Request& request,
                                              const std::vector<std::string>& supported);
// The 101 answer (headers only; the caller sets Response::upgrade) for `protocol`, or
// kBadRequest when the request is not a valid version-13 handshake.
Result<http::Response> websocket_handshake(const http::Request& request,
                                           const std::string& protocol);

struct WebSocketOptions {
  size_t max_message = 4 << 20;  // a bigger (joined) message ends the connection with 1009
  bool allow_text = false;       // the channel protocols are binary only
};

class WebSocket {
 public:
  explicit WebSocket(http::Duplex& io, WebSocketOptions options = {})
      : io_(io), options_(options) {}

  // The next data message. nullopt: the peer closed (close frame, answered, or EOF).
  // kTimeout: nothing complete within `timeout` (a partial frame is kept; call again).
  // kBadRequest: the peer broke the protocol (a close frame with the reason was sent).
  // kServiceUnavailable: the connection failed.
  Result<std::optional<std::string>> read_message(std::chrono::milliseconds timeout);

  Status send_binary(std::string_view payload);
  // Sends a close frame (once); later sends fail.
  Status send_close(uint16_t code, std::string_view reason = "");
  Status send_ping(std::string_view payload = "");
  // Whether the peer's close frame has arrived.
  bool peer_closed() const { return peer_closed_; }

 private:
  struct FrameHead {
    bool fin = false;
    uint8_t opcode = 0;
    size_t header_size = 0;
    uint64_t length = 0;
    bool masked = false;
    uint8_t mask[4] = {};
  };
  // A whole frame at the start of buffer_, or nullopt when more bytes are needed.
  Result<std::optional<FrameHead>> parse_head() const;
  Status fail(uint16_t code, const std::string& why);
  Status send_frame(uint8_t opcode, std::string_view payload);

  http::Duplex& io_;
  const WebSocketOptions options_;
  std::string buffer_;   // bytes read, not yet parsed (reader thread only)
  std::string partial_;  // the fragments of a message so far (reader thread only)
  bool in_fragments_ = false;
  bool peer_closed_ = false;
  std::mutex write_mu_;  // guards close_sent_ and serializes frames on the wire
  bool close_sent_ = false;
};

// An http::Duplex whose bytes travel as binary WebSocket messages (SPDY tunnelled in a
// WebSocket: message boundaries mean nothing). close() sends a close frame.
class WebSocketDuplex final : public http::Duplex {
 public:
  explicit WebSocketDuplex(WebSocket& ws, http::Duplex& transport)
      : ws_(ws), transport_(transport) {}
  Result<size_t> read_some(char* buffer, size_t max, std::chrono::milliseconds timeout) override;
  Status write_all(std::string_view bytes) override { return ws_.send_binary(bytes); }
  void close() override;

 private:
  WebSocket& ws_;
  http::Duplex& transport_;
  std::string pending_;  // the rest of the last message (reader thread only)
  bool eof_ = false;
};

}  // namespace k3c::streaming
