// Plain-socket tcpSocket and httpGet probes (see probes.h). IPv4 and IPv6 literals or names
// resolved with getaddrinfo; every step bounded by the probe's timeout.
#include <arpa/inet.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>

#include "roles/kubelet/pods/probes.h"

namespace k3c::kubelet {

namespace {

using Deadline = std::chrono::steady_clock::time_point;

int remaining_ms(Deadline deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  return static_cast<int>(std::max<int64_t>(0, left.count()));
}

// A connected socket (>= 0), or -1 with `why` set.
int connect_to(const std::string& host, int port, Deadline deadline, std::string& why) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found); rc != 0) {
    why = "dial tcp " + host + ":" + std::to_string(port) + ": " + gai_strerror(rc);
    return -1;
  }
  int fd = -1;
  for (addrinfo* a = found; a && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    int rc = connect(fd, a->ai_addr, a->ai_addrlen);
    if (rc != 0 && errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      rc = poll(&p, 1, remaining_ms(deadline)) == 1 ? 0 : -1;
      int err = rc == 0 ? 0 : ETIMEDOUT;
      socklen_t len = sizeof err;
      if (rc == 0) getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      if (err != 0) {
        errno = err;
        rc = -1;
      }
    }
    if (rc != 0) {
      std::string text = std::strerror(errno);
      if (!text.empty()) text[0] = static_cast<char>(std::tolower(text[0]));  // Go's wording
      why = "dial tcp " + host + ":" + std::to_string(port) + ": connect: " + text;
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  return fd;
}

}  // namespace

ProbeOutcome SocketProbeNetwork::tcp(const std::string& host, int port,
                                     std::chrono::milliseconds timeout) {
  std::string why;
  int fd = connect_to(host, port, std::chrono::steady_clock::now() + timeout, why);
  if (fd < 0) return {false, why};
  close(fd);
  return {true, ""};
}

ProbeOutcome SocketProbeNetwork::http_get(const std::string& scheme, const std::string& host,
                                          int port, const std::string& path,
                                          const nlohmann::json& headers,
                                          std::chrono::milliseconds timeout) {
  if (scheme == "HTTPS") return {false, "HTTPS probes are not implemented in k3c yet"};
  const Deadline deadline = std::chrono::steady_clock::now() + timeout;
  std::string why;
  int fd = connect_to(host, port, deadline, why);
  if (fd < 0)
    return {false, "Get \"http://" + host + ":" + std::to_string(port) + path + "\": " + why};
  std::string request = "GET " + (path.empty() ? "/" : path) + " HTTP/1.1\r\nHost: " + host + ":" +
                        std::to_string(port) + "\r\nUser-Agent: kube-probe/1.32\r\nAccept: */*\r\n";
  if (headers.is_array()) {
    for (const auto& h : headers)
      request += h.value("name", "") + ": " + h.value("value", "") + "\r\n";
  }
  request += "Connection: close\r\n\r\n";
  size_t sent = 0;
  while (sent < request.size()) {
    pollfd p{fd, POLLOUT, 0};
    if (poll(&p, 1, remaining_ms(deadline)) != 1) break;
    ssize_t n = send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<size_t>(n);
  }
  std::string response;
  while (sent == request.size() && response.find("\r\n") == std::string::npos &&
         response.size() < 4096) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, remaining_ms(deadline)) != 1) break;
    char buf[1024];
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    response.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  // "HTTP/1.1 200 OK"
  const auto space = response.find(' ');
  if (response.rfind("HTTP/", 0) != 0 || space == std::string::npos) {
    return {false, "Get \"http://" + host + ":" + std::to_string(port) + path +
                       "\": no HTTP response before the timeout"};
  }
  const int code = std::atoi(response.c_str() + space + 1);
  if (code >= 200 && code < 400) return {true, ""};
  return {false, "HTTP probe failed with statuscode: " + std::to_string(code)};
}

}  // namespace k3c::kubelet
