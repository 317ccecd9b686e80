// SPDY/3.1 frames, header compression and the connection's reader and writer (see spdy.h).
#include "streaming/spdy.h"

#include <zlib.h>

namespace k3c::streaming::spdy {
namespace {

constexpr uint16_t kVersion = 3;
constexpr size_t kReadChunk = 32 << 10;
// Data frames we send carry at most this much (the 24-bit length allows 16 MiB).
constexpr size_t kMaxDataFrame = 32 << 10;

void put32(std::string& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((v >> shift) & 0xFF));
}
void put24(std::string& out, uint32_t v) {
  for (int shift = 16; shift >= 0; shift -= 8)
    out.push_back(static_cast<char>((v >> shift) & 0xFF));
}
uint32_t get32(std::string_view s, size_t at) {
  const auto* b = reinterpret_cast<const uint8_t*>(s.data() + at);
  return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | b[3];
}
Status bad(std::string why) { return error(Code::kBadRequest, "spdy: " + std::move(why)); }

}  // namespace

std::string Frame::header(std::string_view name) const {
  for (const auto& [k, v] : headers)
    if (k == name) return v;
  return "";
}

// ---- header compression -------------------------------------------------------------------

struct HeaderCompressor::Impl {
  z_stream z{};
  bool ok = false;
};

HeaderCompressor::HeaderCompressor() : impl_(std::make_unique<Impl>()) {
  std::string_view d = dictionary();
  impl_->ok = deflateInit(&impl_->z, Z_DEFAULT_COMPRESSION) == Z_OK &&
              deflateSetDictionary(&impl_->z, reinterpret_cast<const Bytef*>(d.data()),
                                   static_cast<uInt>(d.size())) == Z_OK;
}

HeaderCompressor::~HeaderCompressor() { deflateEnd(&impl_->z); }

Result<std::string> HeaderCompressor::compress(const Headers& headers) {
  if (!impl_->ok) return error(Code::kInternal, "spdy: zlib deflate did not initialize");
  std::string plain;
  put32(plain, static_cast<uint32_t>(headers.size()));
  for (const auto& [k, v] : headers) {
    put32(plain, static_cast<uint32_t>(k.size()));
    plain.append(k);
    put32(plain, static_cast<uint32_t>(v.size()));
    plain.append(v);
  }
  z_stream& z = impl_->z;
  z.next_in = reinterpret_cast<Bytef*>(plain.data());
  z.avail_in = static_cast<uInt>(plain.size());
  std::string out;
  char chunk[4096];
  do {
    z.next_out = reinterpret_cast<Bytef*>(chunk);
    z.avail_out = sizeof chunk;
    int rc = deflate(&z, Z_SYNC_FLUSH);
    if (rc != Z_OK && rc != Z_BUF_ERROR) return error(Code::kInternal, "spdy: deflate failed");
    out.append(chunk, sizeof chunk - z.avail_out);
  } while (z.avail_out == 0);
  return out;
}

struct HeaderDecompressor::Impl {
  z_stream z{};
  bool ok = false;
  size_t limit = 0;
};

HeaderDecompressor::HeaderDecompressor(size_t max_inflated) : impl_(std::make_unique<Impl>()) {
  impl_->ok = inflateInit(&impl_->z) == Z_OK;
  impl_->limit = max_inflated;
}

HeaderDecompressor::~HeaderDecompressor() { inflateEnd(&impl_->z); }

Result<Headers> HeaderDecompressor::decompress(std::string_view block) {
  if (!impl_->ok) return bad("the inflate stream is broken by an earlier error");
  z_stream& z = impl_->z;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(block.data()));
  z.avail_in = static_cast<uInt>(block.size());
  std::string plain;
  char chunk[4096];
  for (;;) {
    z.next_out = reinterpret_cast<Bytef*>(chunk);
    z.avail_out = sizeof chunk;
    int rc = inflate(&z, Z_SYNC_FLUSH);
    if (rc == Z_NEED_DICT) {
      std::string_view d = dictionary();
      if (inflateSetDictionary(&z, reinterpret_cast<const Bytef*>(d.data()),
                               static_cast<uInt>(d.size())) != Z_OK) {
        impl_->ok = false;
        return bad("the header block wants another dictionary than SPDY/3's");
      }
      continue;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      impl_->ok = false;
      return bad("corrupt header block");
    }
    plain.append(chunk, sizeof chunk - z.avail_out);
    if (plain.size() > impl_->limit) {
      impl_->ok = false;
      return bad("header block over " + std::to_string(impl_->limit) + " bytes");
    }
    if (z.avail_in == 0 && z.avail_out != 0) break;
    if (rc == Z_BUF_ERROR && z.avail_out != 0) {
      impl_->ok = false;
      return bad("corrupt header block");
    }
  }
  // count, then (name length, name, value length, value) pairs.
  if (plain.size() < 4) return bad("short header block");
  uint32_t count = get32(plain, 0);
  size_t at = 4;
  Headers out;
  auto take = [&](std::string& into) {
    if (plain.size() - at < 4) return false;
    uint32_t n = get32(plain, at);
    at += 4;
    if (plain.size() - at < n) return false;
    into.assign(plain, at, n);
    at += n;
    return true;
  };
  for (uint32_t i = 0; i < count; ++i) {
    std::string name, value;
    if (!take(name) || !take(value)) return bad("truncated header block");
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out.emplace_back(std::move(name), std::move(value));
  }
  return out;
}

// ---- frames ---------------------------------------------------------------------------------

Result<std::optional<Frame>> FrameParser::next(HeaderDecompressor& headers) {
  if (buffer_.size() < 8) return std::optional<Frame>();
  const auto* b = reinterpret_cast<const uint8_t*>(buffer_.data());
  const uint32_t length = (uint32_t{b[5]} << 16) | (uint32_t{b[6]} << 8) | b[7];
  if (length > max_frame_)
    return bad("a frame of " + std::to_string(length) + " bytes is over the limit of " +
               std::to_string(max_frame_));
  if (buffer_.size() < 8 + length) return std::optional<Frame>();
  Frame f;
  f.flags = b[4];
  std::string_view payload(buffer_.data() + 8, length);
  const bool control = (b[0] & 0x80) != 0;
  if (!control) {
    f.type = FrameType::kData;
    f.stream_id = get32(buffer_, 0) & 0x7FFFFFFF;
    f.data.assign(payload);
  } else {
    const uint16_t version = static_cast<uint16_t>(((b[0] & 0x7F) << 8) | b[1]);
    if (version != kVersion) return bad("unsupported version " + std::to_string(version));
    f.type = static_cast<FrameType>((uint16_t{b[2]} << 8) | b[3]);
    auto need = [&](size_t n) -> Status {
      if (payload.size() < n) return bad("short control frame");
      return Status::ok();
    };
    switch (f.type) {
      case FrameType::kSynStream: {
        RETURN_IF_ERROR(need(10));
        f.stream_id = get32(payload, 0) & 0x7FFFFFFF;
        f.associated_id = get32(payload, 4) & 0x7FFFFFFF;
        f.priority = static_cast<uint8_t>(uint8_t(payload[8]) >> 5);
        ASSIGN_OR_RETURN(f.headers, headers.decompress(payload.substr(10)));
        break;
      }
      case FrameType::kSynReply:
      case FrameType::kHeaders: {
        RETURN_IF_ERROR(need(4));
        f.stream_id = get32(payload, 0) & 0x7FFFFFFF;
        ASSIGN_OR_RETURN(f.headers, headers.decompress(payload.substr(4)));
        break;
      }
      case FrameType::kRstStream:
      case FrameType::kWindowUpdate:
        RETURN_IF_ERROR(need(8));
        f.stream_id = get32(payload, 0) & 0x7FFFFFFF;
        f.value = get32(payload, 4);
        break;
      case FrameType::kGoAway:
        RETURN_IF_ERROR(need(4));
        f.stream_id = get32(payload, 0) & 0x7FFFFFFF;  // the last good stream
        f.value = payload.size() >= 8 ? get32(payload, 4) : 0;
        break;
      case FrameType::kPing:
        RETURN_IF_ERROR(need(4));
        f.value = get32(payload, 0);
        break;
      case FrameType::kSettings:
        f.data.assign(payload);
        break;
      default:
        break;  // unknown control frames are ignored, as the spec asks (data empty)
    }
  }
  buffer_.erase(0, 8 + length);
  return std::optional<Frame>(std::move(f));
}

Result<std::string> encode(const Frame& f, HeaderCompressor& compressor) {
  std::string payload;
  switch (f.type) {
    case FrameType::kData: {
      std::string out;
      put32(out, f.stream_id & 0x7FFFFFFF);
      out.push_back(static_cast<char>(f.flags));
      put24(out, static_cast<uint32_t>(f.data.size()));
      out.append(f.data);
      return out;
    }
    case FrameType::kSynStream: {
      put32(payload, f.stream_id & 0x7FFFFFFF);
      put32(payload, f.associated_id & 0x7FFFFFFF);
      payload.push_back(static_cast<char>((f.priority & 0x7) << 5));
      payload.push_back(0);  // slot
      ASSIGN_OR_RETURN(std::string block, compressor.compress(f.headers));
      payload += block;
      break;
    }
    case FrameType::kSynReply:
    case FrameType::kHeaders: {
      put32(payload, f.stream_id & 0x7FFFFFFF);
      ASSIGN_OR_RETURN(std::string block, compressor.compress(f.headers));
      payload += block;
      break;
    }
    case FrameType::kRstStream:
    case FrameType::kWindowUpdate:
    case FrameType::kGoAway:
      put32(payload, f.stream_id & 0x7FFFFFFF);
      put32(payload, f.value);
      break;
    case FrameType::kPing:
      put32(payload, f.value);
      break;
    case FrameType::kSettings:
      payload = f.data;
      break;
  }
  std::string out;
  out.push_back(static_cast<char>(0x80 | (kVersion >> 8)));
  out.push_back(static_cast<char>(kVersion & 0xFF));
  out.push_back(static_cast<char>(static_cast<uint16_t>(f.type) >> 8));
  out.push_back(static_cast<char>(static_cast<uint16_t>(f.type) & 0xFF));
  out.push_back(static_cast<char>(f.flags));
  put24(out, static_cast<uint32_t>(payload.size()));
  out += payload;
  return out;
}

// ---- the connection -------------------------------------------------------------------------

Result<std::optional<Frame>> SpdyConnection::read_frame(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto frame = parser_.next(inflater_);
    if (!frame.is_ok()) {
      (void)send_goaway(kProtocolError);  // best effort: the connection ends either way
      return frame.status();
    }
    if (*frame) {
      Frame& f = **frame;
      if (f.type == FrameType::kPing) {
        // Odd ids are the client's pings (ours would be even): echo them.
        if (f.value % 2 == 1) RETURN_IF_ERROR(send(f));
        continue;
      }
      if (f.type == FrameType::kSettings || f.type == FrameType::kWindowUpdate) continue;
      if (f.type == FrameType::kSynStream) {
        if (f.stream_id == 0 || f.stream_id % 2 == 0 || f.stream_id <= last_peer_stream_) {
          (void)send_goaway(kProtocolError);
          return bad("stream id " + std::to_string(f.stream_id) + " is not a new client stream");
        }
        last_peer_stream_ = f.stream_id;
      }
      return frame;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return error(Code::kTimeout, "no whole frame in time");
    char chunk[kReadChunk];
    auto n = io_.read_some(chunk, sizeof chunk, left);
    if (!n.is_ok()) return n.status();
    if (*n == 0) return std::optional<Frame>();
    parser_.feed(std::string_view(chunk, *n));
  }
}

Status SpdyConnection::send(const Frame& frame) {
  std::lock_guard lock(write_mu_);
  ASSIGN_OR_RETURN(std::string bytes, encode(frame, deflater_));
  return io_.write_all(bytes);
}

Status SpdyConnection::send_data(uint32_t stream_id, std::string_view data, bool fin) {
  do {
    Frame f;
    f.stream_id = stream_id;
    size_t n = std::min(data.size(), kMaxDataFrame);
    f.data.assign(data.substr(0, n));
    data.remove_prefix(n);
    if (fin && data.empty()) f.flags = kFlagFin;
    RETURN_IF_ERROR(send(f));
  } while (!data.empty());
  return Status::ok();
}

Status SpdyConnection::send_reply(uint32_t stream_id, const Headers& headers, bool fin) {
  Frame f;
  f.type = FrameType::kSynReply;
  f.stream_id = stream_id;
  f.headers = headers;
  if (fin) f.flags = kFlagFin;
  return send(f);
}

Status SpdyConnection::send_reset(uint32_t stream_id, uint32_t status) {
  Frame f;
  f.type = FrameType::kRstStream;
  f.stream_id = stream_id;
  f.value = status;
  return send(f);
}

Status SpdyConnection::send_goaway(uint32_t status) {
  Frame f;
  f.type = FrameType::kGoAway;
  f.stream_id = last_peer_stream_;
  f.value = status;
  return send(f);
}

}  // namespace k3c::streaming::spdy
