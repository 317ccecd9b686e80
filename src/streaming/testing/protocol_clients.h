// The client sides of the streaming protocols, as small as tests need them: WebSocket
// frames as a client sends them (masked) and reads them (unmasked), a SPDY client over the
// module's own framer, and the remote-command channels on top. Used by the unit tests here
// and by the kubelet's and API server's tests of the whole chain.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "http/duplex.h"
#include "http/http.h"
#include "streaming/spdy.h"

namespace k3c::streaming::testing {

using namespace std::chrono_literals;

// A WebSocket upgrade request as kubectl sends it (RFC 6455's sample key).
inline http::Request websocket_request(const std::string& protocols, const std::string& path = "") {
  http::Request r;
  r.method = "GET";
  r.path = path;
  r.headers = {{"connection", "Upgrade"},
               {"upgrade", "websocket"},
               {"sec-websocket-version", "13"},
               {"sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ=="},
               {"sec-websocket-protocol", protocols}};
  return r;
}

// Reads more bytes from `io` into `buffer` until `until`; false on EOF, error or deadline.
inline bool read_more(http::Duplex& io, std::string& buffer,
                      std::chrono::steady_clock::time_point until) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      until - std::chrono::steady_clock::now());
  if (left.count() <= 0) return false;
  char chunk[16384];
  auto n = io.read_some(chunk, sizeof chunk, left);
  if (!n.is_ok() || *n == 0) return false;
  buffer.append(chunk, *n);
  return true;
}

// A client frame: FIN (unless `fin` is false), the opcode, masked with a fixed key.
inline std::string client_frame(uint8_t opcode, std::string_view payload, bool fin = true,
                                bool masked = true) {
  std::string f;
  f.push_back(static_cast<char>((fin ? 0x80 : 0) | opcode));
  const char mask_bit = masked ? static_cast<char>(0x80) : 0;
  if (payload.size() < 126) {
    f.push_back(static_cast<char>(mask_bit | static_cast<char>(payload.size())));
  } else if (payload.size() <= 0xFFFF) {
    f.push_back(static_cast<char>(mask_bit | 126));
    f.push_back(static_cast<char>(payload.size() >> 8));
    f.push_back(static_cast<char>(payload.size() & 0xFF));
  } else {
    f.push_back(static_cast<char>(mask_bit | 127));
    for (int i = 7; i >= 0; --i)
      f.push_back(static_cast<char>((uint64_t{payload.size()} >> (8 * i)) & 0xFF));
  }
  const char key[4] = {0x12, 0x34, 0x56, 0x78};
  if (masked) f.append(key, 4);
  for (size_t i = 0; i < payload.size(); ++i)
    f.push_back(masked ? static_cast<char>(payload[i] ^ key[i % 4]) : payload[i]);
  return f;
}

// Server frames read back from a Duplex, across any read boundaries.
class FrameReader {
 public:
  struct Frame {
    uint8_t opcode = 0;
    std::string payload;
  };
  explicit FrameReader(http::Duplex& io) : io_(io) {}
  // nullopt on EOF, error or when nothing came within `timeout`.
  std::optional<Frame> next(std::chrono::milliseconds timeout = 5s) {
    const auto until = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      if (auto f = parse()) return f;
      if (!read_more(io_, buffer_, until)) return std::nullopt;
    }
  }
  // The next data frame's payload (binary), skipping control frames; nullopt at a close.
  std::optional<std::string> message(std::chrono::milliseconds timeout = 5s) {
    for (;;) {
      auto f = next(timeout);
      if (!f || f->opcode == 0x8) return std::nullopt;
      if (f->opcode == 0x2 || f->opcode == 0x1) return f->payload;
    }
  }

 private:
  std::optional<Frame> parse() {
    const auto* b = reinterpret_cast<const uint8_t*>(buffer_.data());
    if (buffer_.size() < 2) return std::nullopt;
    uint64_t len = b[1] & 0x7F;
    size_t pos = 2;
    if (len == 126) {
      if (buffer_.size() < 4) return std::nullopt;
      len = (uint64_t{b[2]} << 8) | b[3];
      pos = 4;
    } else if (len == 127) {
      if (buffer_.size() < 10) return std::nullopt;
      len = 0;
      for (int i = 0; i < 8; ++i) len = (len << 8) | b[2 + i];
      pos = 10;
    }
    if (buffer_.size() < pos + len) return std::nullopt;
    Frame f{static_cast<uint8_t>(b[0] & 0x0F), buffer_.substr(pos, len)};
    buffer_.erase(0, pos + len);
    return f;
  }
  http::Duplex& io_;
  std::string buffer_;
};

// A SPDY client: frames encoded and parsed with the module's codec (the header compression
// is symmetric), stream ids odd from 1.
class SpdyClient {
 public:
  explicit SpdyClient(http::Duplex& io) : io_(io) {}
  uint32_t open(const spdy::Headers& headers, bool fin = false) {
    spdy::Frame f;
    f.type = spdy::FrameType::kSynStream;
    f.stream_id = next_id_;
    next_id_ += 2;
    f.headers = headers;
    if (fin) f.flags = spdy::kFlagFin;
    send(f);
    return f.stream_id;
  }
  void data(uint32_t id, std::string_view bytes, bool fin = false) {
    spdy::Frame f;
    f.stream_id = id;
    f.data.assign(bytes);
    if (fin) f.flags = spdy::kFlagFin;
    send(f);
  }
  void send(const spdy::Frame& f) {
    auto bytes = spdy::encode(f, out_);
    if (bytes.is_ok()) (void)io_.write_all(*bytes);
  }
  void raw(std::string_view bytes) { (void)io_.write_all(bytes); }
  // The next frame; nullopt on EOF, error or timeout.
  std::optional<spdy::Frame> next(std::chrono::milliseconds timeout = 5s) {
    const auto until = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      auto f = parser_.next(in_);
      if (!f.is_ok()) return std::nullopt;
      if (*f) return std::move(**f);
      std::string more;
      if (!read_more(io_, more, until)) return std::nullopt;
      parser_.feed(more);
    }
  }

 private:
  http::Duplex& io_;
  spdy::HeaderCompressor out_;
  spdy::HeaderDecompressor in_;
  spdy::FrameParser parser_;
  uint32_t next_id_ = 1;
};

}  // namespace k3c::streaming::testing
