// Starting the watch floor server (see watch_floor.h).
#include "watch_floor.h"

#include <fstream>
#include <thread>

namespace k3c::bench {

Result<std::unique_ptr<WatchFloor>> WatchFloor::start(const std::string& binary,
                                                      const BenchServer& server) {
  std::unique_ptr<WatchFloor> floor(new WatchFloor());
  const std::string port_file = server.scratch("floor.port");
  std::remove(port_file.c_str());
  RETURN_IF_ERROR(floor->process_.spawn({binary, server.tls_dir(), port_file}, {},
                                        server.scratch("floor.out"), server.scratch("floor.err")));
  const auto deadline = SteadyClock::now() + std::chrono::seconds(5);
  int port = 0;
  while (port == 0) {
    std::ifstream(port_file) >> port;
    if (port != 0) break;
    if (floor->process_.exited() || SteadyClock::now() > deadline) {
      return error(Code::kServiceUnavailable,
                   "the watch floor server did not start (" + floor->process_.ended() +
                       "): " + tail_of_file(server.scratch("floor.err"), 400));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSIGN_OR_RETURN(pki::SslContextPtr tls, server.admin_tls());
  floor->client_ =
      std::make_unique<ApiClient>("127.0.0.1", static_cast<uint16_t>(port), std::move(tls));
  ASSIGN_OR_RETURN(auto conn, floor->client_->connect(std::chrono::seconds(5)));
  ASSIGN_OR_RETURN(Answer a, conn->request("GET", "/api/v1/namespaces/default/configmaps"));
  if (a.status != 200) {
    return error(Code::kServiceUnavailable, format("watch floor server: HTTP %d", a.status));
  }
  return floor;
}

}  // namespace k3c::bench
