// The reading side of the benchmark's watch client once a watch's headers are in: a few
// threads, each with an epoll set of its watches, read the TLS records straight off the
// sockets (SSL_read on a socket BIO), undo the chunked encoding and hand each event line to
// the benchmark. The watch phase runs the server and this client on the same cores, so what
// the client spends per event is latency the figures would otherwise charge to the server:
// read through Asio and Beast's parser, a delivery cost the client 9-13 us.
#pragma once

#include <openssl/ssl.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "api_client.h"

namespace k3c::bench {

class WatchReaders {
 public:
  WatchReaders(int threads, LineHandler on_line);
  ~WatchReaders();  // stops the threads and closes the sockets taken
  WatchReaders(const WatchReaders&) = delete;
  WatchReaders& operator=(const WatchReaders&) = delete;

  // Reads watch `watcher`'s chunked body from `fd` (taken: closed by the readers) through
  // `ssl`, which must outlive the readers; `early` holds body bytes already read with the
  // headers.
  void add(int watcher, int fd, SSL* ssl, std::string early);
  // Watches whose stream ended or failed.
  int broken() const { return broken_.load(); }

 private:
  class Thread;
  std::vector<std::unique_ptr<Thread>> threads_;
  const LineHandler on_line_;
  std::atomic<int> broken_{0};
};

}  // namespace k3c::bench
