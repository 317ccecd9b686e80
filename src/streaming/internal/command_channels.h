// The remote-command channels as the session pump (remote_command.cpp) sees them, whatever
// carries them: WebSocket messages with a channel byte, or SPDY streams by type.
//
// Thread-safety: read() and finish() from the pump's input thread; write() and end_output()
// from its output thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "core/status.h"
#include "http/duplex.h"
#include "runtime/runtime_service.h"

namespace k3c::streaming::internal {

constexpr int kStdin = 0, kStdout = 1, kStderr = 2, kError = 3, kResize = 4;

struct Input {
  enum class Kind { kNothing, kStdin, kStdinEnd, kResize, kClosed };
  Kind kind = Kind::kNothing;
  std::string data;  // kStdin
  uint16_t width = 0, height = 0;
};

class CommandChannels {
 public:
  virtual ~CommandChannels() = default;
  // What the client sent; kTimeout when nothing came in time. kClosed: the client is gone.
  virtual Result<Input> read(std::chrono::milliseconds timeout) = 0;
  virtual Status write(int channel, std::string_view data) = 0;
  // No more output on this channel (SPDY: FIN on its stream).
  virtual Status end_output(int channel) = 0;
  // Writes the final status on the error channel and ends the conversation (waiting
  // briefly for the client to close its side, so no answer is cut off).
  virtual Status finish(const std::string& status_json) = 0;
};

// Channels over a WebSocket (v5 adds the close signal [255, channel]).
std::unique_ptr<CommandChannels> websocket_channels(http::Duplex& io, bool v5);
// Channels over SPDY: waits (bounded) for the client to open the streams `options` imply.
Result<std::unique_ptr<CommandChannels>> spdy_channels(http::Duplex& io,
                                                       const runtime::StreamOptions& options);

// Terminal sizes from the resize channel: JSON objects ({"Width":80,"Height":24}), one per
// line or per message; keeps a partial one for the next call. nullopt until a whole one.
class ResizeDecoder {
 public:
  std::optional<std::pair<uint16_t, uint16_t>> feed(std::string_view bytes);

 private:
  std::string buffer_;
};

}  // namespace k3c::streaming::internal
