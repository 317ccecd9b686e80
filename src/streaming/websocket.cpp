// WebSocket server framing (see websocket.h).
#include "streaming/websocket.h"

#include <openssl/evp.h>

#include "core/base64.h"
#include "core/text.h"
#include "streaming/internal/http_text.h"

namespace k3c::streaming {
namespace {

using internal::iequals;

constexpr std::string_view kGuid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
constexpr uint8_t kContinuation = 0x0, kText = 0x1, kBinary = 0x2, kClose = 0x8, kPing = 0x9,
                  kPong = 0xA;
constexpr size_t kFrameReadChunk = 32 << 10;

// Comma-separated tokens of every value of a header.
std::vector<std::string> tokens(const http::Request& request, std::string_view name) {
  std::vector<std::string> out;
  for (const auto& [k, v] : request.headers) {
    if (!iequals(k, name)) continue;
    std::string_view rest = v;
    while (!rest.empty()) {
      size_t comma = rest.find(',');
      std::string_view token = trim_blanks(rest.substr(0, comma));
      if (!token.empty()) out.emplace_back(token);
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
  }
  return out;
}

bool has_token(const http::Request& request, std::string_view header, std::string_view token) {
  for (const std::string& t : tokens(request, header))
    if (iequals(t, token)) return true;
  return false;
}

}  // namespace

std::string websocket_accept(std::string_view client_key) {
  std::string input = std::string(client_key) + std::string(kGuid);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(input.data(), input.size(), digest, &size, EVP_sha1(), nullptr);
  return base64_encode(std::string_view(reinterpret_cast<const char*>(digest), size));
}

bool is_websocket_request(const http::Request& request) {
  return request.method == "GET" && has_token(request, "upgrade", "websocket");
}

std::optional<std::string> choose_subprotocol(const http::Request& request,
                                              const std::vector<std::string>& supported) {
  std::vector<std::string> offered = tokens(request, "sec-websocket-protocol");
  for (const std::string& s : supported)
    for (const std::string& o : offered)
      if (o == s) return s;
  return std::nullopt;
}

Result<http::Response> websocket_handshake(const http::Request& request,
                                           const std::string& protocol) {
  if (!is_websocket_request(request) || !has_token(request, "connection", "upgrade"))
    return error(Code::kBadRequest, "not a websocket upgrade request");
  if (request.header("sec-websocket-version") != "13")
    return error(Code::kBadRequest, "unsupported websocket version (13 is)");
  auto key = request.header("sec-websocket-key");
  auto decoded = key ? base64_decode(trim_blanks(*key)) : std::nullopt;
  if (!decoded || decoded->size() != 16)
    return error(Code::kBadRequest, "missing or malformed Sec-WebSocket-Key");
  http::Response r;
  r.status = 101;
  r.set_header("Upgrade", "websocket");
  r.set_header("Connection", "Upgrade");
  r.set_header("Sec-WebSocket-Accept", websocket_accept(trim_blanks(*key)));
  if (!protocol.empty()) r.set_header("Sec-WebSocket-Protocol", protocol);
  return r;
}

Result<std::optional<WebSocket::FrameHead>> WebSocket::parse_head() const {
  const auto* b = reinterpret_cast<const uint8_t*>(buffer_.data());
  const size_t have = buffer_.size();
  if (have < 2) return std::optional<FrameHead>();
  FrameHead h;
  h.fin = (b[0] & 0x80) != 0;
  if ((b[0] & 0x70) != 0)
    return error(Code::kBadRequest, "reserved bits set (no extension was agreed)");
  h.opcode = b[0] & 0x0F;
  h.masked = (b[1] & 0x80) != 0;
  uint64_t length = b[1] & 0x7F;
  size_t pos = 2;
  if (length == 126) {
    if (have < 4) return std::optional<FrameHead>();
    length = (uint64_t{b[2]} << 8) | b[3];
    pos = 4;
  } else if (length == 127) {
    if (have < 10) return std::optional<FrameHead>();
    length = 0;
    for (int i = 0; i < 8; ++i) length = (length << 8) | b[2 + i];
    pos = 10;
    if (length >> 63) return error(Code::kBadRequest, "frame length has the top bit set");
  }
  if (h.masked) {
    if (have < pos + 4) return std::optional<FrameHead>();
    std::copy_n(b + pos, 4, h.mask);
    pos += 4;
  }
  h.header_size = pos;
  h.length = length;
  return std::optional<FrameHead>(h);
}

Status WebSocket::fail(uint16_t code, const std::string& why) {
  (void)send_close(code, why);  // best effort: the connection ends either way
  return error(Code::kBadRequest, "websocket: " + why);
}

Result<std::optional<std::string>> WebSocket::read_message(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (peer_closed_) return std::optional<std::string>();
    auto head = parse_head();
    if (!head.is_ok()) return fail(1002, head.status().message());
    const std::optional<FrameHead>& h = *head;
    const bool control = h && (h->opcode & 0x8) != 0;
    if (h && control && (h->length > 125 || !h->fin))
      return fail(1002, "control frame too long or fragmented");
    if (h && !control && partial_.size() + h->length > options_.max_message)
      return fail(1009,
                  "message over the limit of " + std::to_string(options_.max_message) + " bytes");
    if (h && !h->masked) return fail(1002, "client frames must be masked");
    if (!h || buffer_.size() < h->header_size + h->length) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return error(Code::kTimeout, "no complete message in time");
      char chunk[kFrameReadChunk];
      auto n = io_.read_some(chunk, sizeof chunk, left);
      if (!n.is_ok()) return n.status();
      if (*n == 0) {
        peer_closed_ = true;  // EOF without a close frame: the client went away
        return std::optional<std::string>();
      }
      buffer_.append(chunk, *n);
      continue;
    }
    std::string payload = buffer_.substr(h->header_size, h->length);
    buffer_.erase(0, h->header_size + h->length);
    for (size_t i = 0; i < payload.size(); ++i) payload[i] ^= static_cast<char>(h->mask[i % 4]);
    switch (h->opcode) {
      case kPing:
        RETURN_IF_ERROR(send_frame(kPong, payload));
        continue;
      case kPong:
        continue;
      case kClose: {
        peer_closed_ = true;
        uint16_t code = 1000;
        if (payload.size() >= 2)
          code = static_cast<uint16_t>((uint8_t(payload[0]) << 8) | uint8_t(payload[1]));
        (void)send_close(code == 1005 ? 1000 : code);  // the answer; it may race our own
        return std::optional<std::string>();
      }
      case kText:
      case kBinary:
        if (in_fragments_) return fail(1002, "a new message began inside a fragmented one");
        if (h->opcode == kText && !options_.allow_text)
          return fail(1003, "text messages are not supported by this protocol");
        partial_ = std::move(payload);
        in_fragments_ = !h->fin;
        break;
      case kContinuation:
        if (!in_fragments_) return fail(1002, "a continuation frame without a message");
        partial_ += payload;
        in_fragments_ = !h->fin;
        break;
      default:
        return fail(1002, "unknown opcode " + std::to_string(h->opcode));
    }
    if (!in_fragments_) return std::optional<std::string>(std::move(partial_));
  }
}

Status WebSocket::send_frame(uint8_t opcode, std::string_view payload) {
  std::string frame;
  frame.reserve(payload.size() + 10);
  frame.push_back(static_cast<char>(0x80 | opcode));
  if (payload.size() < 126) {
    frame.push_back(static_cast<char>(payload.size()));
  } else if (payload.size() <= 0xFFFF) {
    frame.push_back(static_cast<char>(126));
    frame.push_back(static_cast<char>(payload.size() >> 8));
    frame.push_back(static_cast<char>(payload.size() & 0xFF));
  } else {
    frame.push_back(static_cast<char>(127));
    for (int i = 7; i >= 0; --i)
      frame.push_back(static_cast<char>((uint64_t{payload.size()} >> (8 * i)) & 0xFF));
  }
  frame.append(payload);
  std::lock_guard lock(write_mu_);
  if (close_sent_) return error(Code::kServiceUnavailable, "websocket: the close frame was sent");
  if (opcode == kClose) close_sent_ = true;
  return io_.write_all(frame);
}

Status WebSocket::send_binary(std::string_view payload) { return send_frame(kBinary, payload); }

Status WebSocket::send_ping(std::string_view payload) { return send_frame(kPing, payload); }

Status WebSocket::send_close(uint16_t code, std::string_view reason) {
  std::string payload;
  payload.push_back(static_cast<char>(code >> 8));
  payload.push_back(static_cast<char>(code & 0xFF));
  payload.append(reason.substr(0, 123));
  return send_frame(kClose, payload);
}

Result<size_t> WebSocketDuplex::read_some(char* buffer, size_t max,
                                          std::chrono::milliseconds timeout) {
  while (pending_.empty()) {
    if (eof_) return size_t{0};
    auto message = ws_.read_message(timeout);
    if (!message.is_ok()) {
      if (message.status().code() == Code::kBadRequest)
        return error(Code::kServiceUnavailable, message.status().message());
      return message.status();
    }
    if (!*message) {
      eof_ = true;
      return size_t{0};
    }
    pending_ = std::move(**message);
  }
  size_t n = std::min(max, pending_.size());
  std::copy_n(pending_.data(), n, buffer);
  pending_.erase(0, n);
  return n;
}

void WebSocketDuplex::close() {
  (void)ws_.send_close(1000);  // best effort before the transport closes
  transport_.close();
}

}  // namespace k3c::streaming
