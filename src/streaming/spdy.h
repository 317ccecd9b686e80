// SPDY/3.1 framing, as kubectl's port-forward (and exec before 1.30) speaks it through
// moby/spdystream: control frames (SYN_STREAM, SYN_REPLY, RST_STREAM, SETTINGS, PING,
// GOAWAY, HEADERS, WINDOW_UPDATE) and data frames, header blocks zlib-compressed with the
// SPDY/3 dictionary (one compression context per direction for the whole connection, a
// Z_SYNC_FLUSH per block). See doc/streaming.md.
//
// FrameParser and the header codecs are single-threaded values. SpdyConnection: one reader
// thread (read_frame) and any number of writers (send_*), serialized by a mutex.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"
#include "http/duplex.h"

namespace k3c::streaming::spdy {

enum class FrameType : uint16_t {
  kData = 0,
  kSynStream = 1,
  kSynReply = 2,
  kRstStream = 3,
  kSettings = 4,
  kPing = 6,
  kGoAway = 7,
  kHeaders = 8,
  kWindowUpdate = 9,
};

constexpr uint8_t kFlagFin = 0x01;
constexpr uint8_t kFlagUnidirectional = 0x02;
// RST_STREAM status codes.
constexpr uint32_t kProtocolError = 1, kInvalidStream = 2, kRefusedStream = 3, kStreamInUse = 8,
                   kCancel = 5, kInternalError = 6;

using Headers = std::vector<std::pair<std::string, std::string>>;  // names lower-case

struct Frame {
  FrameType type = FrameType::kData;
  uint8_t flags = 0;
  uint32_t stream_id = 0;      // data, SYN_STREAM/REPLY, RST, HEADERS, WINDOW_UPDATE
  uint32_t associated_id = 0;  // SYN_STREAM
  uint8_t priority = 0;        // SYN_STREAM (0..7)
  uint32_t value = 0;  // RST_STREAM/GOAWAY status, PING id, WINDOW_UPDATE delta, GOAWAY last id
  Headers headers;     // SYN_STREAM, SYN_REPLY, HEADERS
  std::string data;    // data frames; SETTINGS' raw entries

  bool fin() const { return (flags & kFlagFin) != 0; }
  // The first value of a header, "" when absent.
  std::string header(std::string_view name) const;
};

// The SPDY/3 header dictionary (1423 bytes).
std::string_view dictionary();

// Compresses header blocks for one direction of one connection.
class HeaderCompressor {
 public:
  HeaderCompressor();
  ~HeaderCompressor();
  HeaderCompressor(const HeaderCompressor&) = delete;
  HeaderCompressor& operator=(const HeaderCompressor&) = delete;
  Result<std::string> compress(const Headers& headers);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Decompresses the header blocks of the other direction. Limits the block's inflated size.
class HeaderDecompressor {
 public:
  explicit HeaderDecompressor(size_t max_inflated = 1 << 20);
  ~HeaderDecompressor();
  HeaderDecompressor(const HeaderDecompressor&) = delete;
  HeaderDecompressor& operator=(const HeaderDecompressor&) = delete;
  // kBadRequest for a corrupt or oversized block.
  Result<Headers> decompress(std::string_view block);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Cuts a byte stream into frames, whatever the read boundaries.
class FrameParser {
 public:
  explicit FrameParser(size_t max_frame = 1 << 20) : max_frame_(max_frame) {}
  void feed(std::string_view bytes) { buffer_.append(bytes); }
  // The next whole frame, nullopt when more bytes are needed; kBadRequest for a malformed
  // frame (a wrong version, a short control frame, over the size limit, a bad header block).
  Result<std::optional<Frame>> next(HeaderDecompressor& headers);

 private:
  size_t max_frame_;
  std::string buffer_;
};

// The bytes of a frame. Header blocks go through `compressor`.
Result<std::string> encode(const Frame& frame, HeaderCompressor& compressor);

// A SPDY connection over a byte stream (the server side: it answers PINGs itself).
class SpdyConnection {
 public:
  explicit SpdyConnection(http::Duplex& io) : io_(io) {}
  // The next frame other than PING (answered here) and SETTINGS/WINDOW_UPDATE (no flow
  // control is kept: spdystream keeps none either). nullopt on EOF. kTimeout when none came
  // in time (call again); kBadRequest when the peer broke the protocol (a GOAWAY was sent).
  Result<std::optional<Frame>> read_frame(std::chrono::milliseconds timeout);
  Status send(const Frame& frame);
  Status send_data(uint32_t stream_id, std::string_view data, bool fin);
  Status send_reply(uint32_t stream_id, const Headers& headers = {}, bool fin = false);
  Status send_reset(uint32_t stream_id, uint32_t status);
  Status send_goaway(uint32_t status);
  http::Duplex& io() { return io_; }

 private:
  http::Duplex& io_;
  FrameParser parser_;                         // reader thread only
  HeaderDecompressor inflater_;                // reader thread only
  std::atomic<uint32_t> last_peer_stream_{0};  // written by the reader thread
  std::mutex write_mu_;  // guards deflater_ and the order of frames on the wire
  HeaderCompressor deflater_;
};

}  // namespace k3c::streaming::spdy
