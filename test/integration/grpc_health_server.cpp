// A gRPC health server for the pods tier's grpc probe test: `k3c_grpc_health_server <port>
// <status-file>` listens on every address of its network namespace and answers
// grpc.health.v1.Health/Check with the status named in the file at that moment (SERVING,
// NOT_SERVING, SERVICE_UNKNOWN; anything else UNKNOWN), through test/fakes/
// grpc_health_service.h. One connection at a time; it runs until killed. The test starts it
// inside the namespaces it made.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "fakes/grpc_health_service.h"

namespace {

int status_in(const std::string& file) {
  std::ifstream in(file);
  std::string word;
  in >> word;
  if (word == "SERVING") return 1;
  if (word == "NOT_SERVING") return 2;
  if (word == "SERVICE_UNKNOWN") return 3;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <port> <status-file>\n", argv[0]);
    return 2;
  }
  const std::string file = argv[2];
  const int listener = socket(AF_INET6, SOCK_STREAM, 0);
  const int no = 0, yes = 1;
  setsockopt(listener, IPPROTO_IPV6, IPV6_V6ONLY, &no, sizeof no);  // IPv4 too
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  sockaddr_in6 addr{};
  addr.sin6_family = AF_INET6;
  addr.sin6_addr = in6addr_any;
  addr.sin6_port = htons(static_cast<uint16_t>(std::atoi(argv[1])));
  if (bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(listener, 16) != 0) {
    std::perror("grpc health server: listen");
    return 1;
  }
  std::printf("listening\n");
  std::fflush(stdout);
  k3c::testing::GrpcHealthService service([&](const std::string&) { return status_in(file); });
  for (;;) {
    const int c = accept(listener, nullptr, nullptr);
    if (c < 0) continue;
    service.serve(c);
    close(c);
  }
}
