// The socket prober against a real loopback listener: tcp connects, HTTP status decides,
// a closed port is refused.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <thread>

#include "roles/kubelet/pods/probes.h"

namespace k3c::kubelet {
namespace {

using namespace std::chrono_literals;

// A loopback listener on a free port that answers each connection with `reply`.
struct Listener {
  int fd = -1;
  int port = 0;
  std::thread thread;
  explicit Listener(std::string reply, int connections) {
    fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    REQUIRE(listen(fd, 4) == 0);
    socklen_t len = sizeof addr;
    getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    port = ntohs(addr.sin_port);
    thread = std::thread([this, reply, connections] {
      for (int i = 0; i < connections; ++i) {
        int c = accept(fd, nullptr, nullptr);
        if (c < 0) return;
        char buf[1024];
        (void)!recv(c, buf, sizeof buf, 0);  // the request (or nothing, for tcp)
        (void)!send(c, reply.data(), reply.size(), MSG_NOSIGNAL);
        close(c);
      }
    });
  }
  ~Listener() {
    shutdown(fd, SHUT_RDWR);
    close(fd);
    thread.join();
  }
};

TEST_CASE("tcp and http probes over loopback") {
  SocketProbeNetwork net;
  {
    Listener ok("HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n", 2);
    CHECK(net.http_get("HTTP", "127.0.0.1", ok.port, "/healthz", nlohmann::json::array(), 1s)
              .success);
    CHECK(net.tcp("127.0.0.1", ok.port, 1s).success);
  }
  {
    Listener bad("HTTP/1.1 503 Service Unavailable\r\n\r\n", 1);
    auto r = net.http_get("HTTP", "127.0.0.1", bad.port, "/", nlohmann::json::array(), 1s);
    CHECK_FALSE(r.success);
    CHECK(r.output == "HTTP probe failed with statuscode: 503");
  }
  // A port nobody listens on (the listener above is closed).
  int closed;
  {
    Listener gone("", 0);
    closed = gone.port;
  }
  auto refused = net.tcp("127.0.0.1", closed, 1s);
  CHECK_FALSE(refused.success);
  CHECK(refused.output.find("connection refused") != std::string::npos);
  CHECK_FALSE(net.http_get("HTTPS", "127.0.0.1", closed, "/", nlohmann::json::array(), 1s).success);
}

}  // namespace
}  // namespace k3c::kubelet
