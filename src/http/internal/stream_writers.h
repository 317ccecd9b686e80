// The writers of streaming response bodies (watches, followed logs) once their headers are
// out. A stream is written straight from a few threads of their own: a wake-up from the
// producer puts the stream on its thread's ready list, and that thread polls the body and
// writes the chunk with one SSL_write on the connection's non-blocking socket. With a
// thousand watches, going through Asio instead (a post per watcher onto its strand, a
// coroutine resumed, a composed write through the TLS stream's buffers) cost more than the
// encryption and the send together.
//
// A connection handed over is owned by its writer thread until done() is called: nothing
// else may touch its socket or SSL object meanwhile. The thread watches the socket for the
// client going away, closes a stream whose write has stalled past the write timeout, and
// polls every stream once per tick so that a producer's own deadline (a watch's
// timeoutSeconds) is honoured.
//
// Threads: adopt() and stop() from any thread; wake-ups from any thread.
#pragma once

#include <openssl/ssl.h>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "http/http.h"

namespace k3c::http::internal {

class StreamWriters {
 public:
  struct Options {
    int threads = 2;
    std::chrono::steady_clock::duration write_timeout = std::chrono::seconds(60);
    std::chrono::steady_clock::duration tick = std::chrono::seconds(1);
  };
  // How a stream ended: its body ended (and the last chunk was written), or not (the client
  // went away, a write failed or stalled, the writers stopped).
  using Done = std::function<void(bool ended)>;

  explicit StreamWriters(Options options);
  ~StreamWriters();
  StreamWriters(const StreamWriters&) = delete;
  StreamWriters& operator=(const StreamWriters&) = delete;

  // Takes over writing `body` as HTTP/1.1 chunks to the TLS connection (`fd`, `ssl`), whose
  // response headers are written and whose TLS buffers are empty. `done` is called once, on a
  // writer thread; `fd` and `ssl` must stay open until then. False (and nothing taken) once
  // stopped.
  bool adopt(int fd, SSL* ssl, std::shared_ptr<BodyStream> body, Done done);
  // Ends every stream (done(false)) and joins the threads. Idempotent.
  void stop();

 private:
  class Thread;
  const Options options_;
  // Started with the first stream; shared so that one made again outlives a concurrent
  // adopt() still using the old one.
  std::vector<std::shared_ptr<Thread>> threads_;
  size_t next_ = 0;
  std::mutex mu_;  // guards threads_, next_ and stopped_
  bool stopped_ = false;
};

}  // namespace k3c::http::internal
