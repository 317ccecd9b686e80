// The watch floor: k3c_watch_floor_server (watch_floor_server.cpp) started next to the k3c
// server under benchmark, with that server's certificates, so that the watch phase can run
// the same watchers and writer against both and print k3c's figures as a ratio of the floor's
// (what TLS, the kernel and the benchmark's own client cost on this machine at that load).
//
// Ownership: a WatchFloor owns its child process and client; destroying it stops the child.
#pragma once

#include <memory>
#include <string>

#include "api_client.h"
#include "bench_process.h"
#include "bench_server.h"
#include "core/status.h"

namespace k3c::bench {

class WatchFloor {
 public:
  // Starts `binary` (k3c_watch_floor_server) over `server`'s TLS directory and waits (5 s at
  // most) for it to answer.
  static Result<std::unique_ptr<WatchFloor>> start(const std::string& binary,
                                                   const BenchServer& server);
  ApiClient& client() { return *client_; }
  const BenchProcess& process() const { return process_; }

 private:
  WatchFloor() = default;
  BenchProcess process_;
  std::unique_ptr<ApiClient> client_;
};

}  // namespace k3c::bench
