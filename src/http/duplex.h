// A byte stream both ways, as a handler sees a connection after "101 Switching Protocols"
// (WebSocket, SPDY): blocking calls, no Beast types. The HTTPS server implements it over its
// TLS stream (https_server.cpp); make_pipe() joins two in memory for tests; the streaming
// protocols (src/streaming) layer their framing on it.
//
// Thread-safety: one thread may read while another writes; close() from any thread, and it
// wakes a blocked read_some() or write_all().
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string_view>
#include <utility>

#include "core/status.h"

namespace k3c::http {

class Duplex {
 public:
  virtual ~Duplex() = default;
  // Reads what has arrived, at most `max` bytes, waiting up to `timeout` for the first one.
  // 0 = the peer closed its side (EOF). kTimeout when nothing came in time (the stream stays
  // usable); kServiceUnavailable after close() or when the connection failed.
  virtual Result<size_t> read_some(char* buffer, size_t max, std::chrono::milliseconds timeout) = 0;
  // Writes every byte, or fails (kTimeout when the peer does not read for too long: the
  // connection is then closed; kServiceUnavailable when closed).
  virtual Status write_all(std::string_view bytes) = 0;
  // Ends the connection both ways. Idempotent.
  virtual void close() = 0;
};

// Two ends joined in memory: what one writes the other reads. Each direction buffers at most
// `capacity` bytes (a writer waits for room). Closing either end closes both directions.
std::pair<std::unique_ptr<Duplex>, std::unique_ptr<Duplex>> make_pipe(size_t capacity = 1 << 16);

}  // namespace k3c::http
