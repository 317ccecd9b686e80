// A gRPC health server for the tests of the kubelet's grpc probes (nghttp2's server side,
// cleartext HTTP/2): `k3c_grpc_health_server <port> <status-file>` listens on every address
// of its network namespace and answers grpc.health.v1.Health/Check with the status named in
// the file at that moment (SERVING, NOT_SERVING, SERVICE_UNKNOWN; anything else UNKNOWN).
// Other methods get grpc-status 12 (Unimplemented). One connection at a time; it runs until
// killed. The tests start it inside the namespaces they made.
#include <arpa/inet.h>
#include <nghttp2/nghttp2.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>

namespace {

struct Stream {
  std::string path;
  std::string body;  // the framed response
  size_t sent = 0;
};

struct Connection {
  std::string status_file;
  std::map<int32_t, Stream> streams;
};

int status_code(const std::string& file) {
  std::ifstream in(file);
  std::string word;
  in >> word;
  if (word == "SERVING") return 1;
  if (word == "NOT_SERVING") return 2;
  if (word == "SERVICE_UNKNOWN") return 3;
  return 0;
}

nghttp2_nv nv(const char* name, const char* value) {
  return {reinterpret_cast<uint8_t*>(const_cast<char*>(name)),
          reinterpret_cast<uint8_t*>(const_cast<char*>(value)), std::char_traits<char>::length(name),
          std::char_traits<char>::length(value), NGHTTP2_NV_FLAG_NONE};
}

ssize_t read_body(nghttp2_session* session, int32_t stream_id, uint8_t* buf, size_t length,
                  uint32_t* flags, nghttp2_data_source*, void* user_data) {
  auto& c = *static_cast<Connection*>(user_data);
  Stream& s = c.streams[stream_id];
  const size_t n = std::min(length, s.body.size() - s.sent);
  std::copy_n(s.body.data() + s.sent, n, buf);
  s.sent += n;
  if (s.sent == s.body.size()) {
    // The trailers end the stream.
    *flags |= NGHTTP2_DATA_FLAG_EOF | NGHTTP2_DATA_FLAG_NO_END_STREAM;
    nghttp2_nv trailers[] = {nv("grpc-status", "0")};
    nghttp2_submit_trailer(session, stream_id, trailers, 1);
  }
  return static_cast<ssize_t>(n);
}

int on_header(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name, size_t namelen,
              const uint8_t* value, size_t valuelen, uint8_t, void* user_data) {
  auto& c = *static_cast<Connection*>(user_data);
  if (std::string(reinterpret_cast<const char*>(name), namelen) == ":path")
    c.streams[frame->hd.stream_id].path.assign(reinterpret_cast<const char*>(value), valuelen);
  return 0;
}

int on_frame(nghttp2_session* session, const nghttp2_frame* frame, void* user_data) {
  auto& c = *static_cast<Connection*>(user_data);
  const bool request_done = (frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) &&
                            (frame->hd.flags & NGHTTP2_FLAG_END_STREAM);
  if (!request_done) return 0;
  Stream& s = c.streams[frame->hd.stream_id];
  if (s.path != "/grpc.health.v1.Health/Check") {
    nghttp2_nv only[] = {nv(":status", "200"), nv("content-type", "application/grpc"),
                         nv("grpc-status", "12"), nv("grpc-message", "unknown%20method")};
    return nghttp2_submit_response(session, frame->hd.stream_id, only, 4, nullptr);
  }
  const int code = status_code(c.status_file);
  // HealthCheckResponse{status}: field 1, varint; proto3 leaves out the zero.
  const std::string message = code == 0 ? std::string() : std::string{'\x08', static_cast<char>(code)};
  s.body = std::string{'\0', '\0', '\0', '\0', static_cast<char>(message.size())} + message;
  nghttp2_nv headers[] = {nv(":status", "200"), nv("content-type", "application/grpc")};
  nghttp2_data_provider provider{};
  provider.read_callback = read_body;
  return nghttp2_submit_response(session, frame->hd.stream_id, headers, 2, &provider);
}

void serve(int fd, const std::string& status_file) {
  Connection c{status_file, {}};
  nghttp2_session_callbacks* callbacks;
  nghttp2_session_callbacks_new(&callbacks);
  nghttp2_session_callbacks_set_on_header_callback(callbacks, on_header);
  nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, on_frame);
  nghttp2_session* session;
  nghttp2_session_server_new(&session, callbacks, &c);
  nghttp2_session_callbacks_del(callbacks);
  nghttp2_submit_settings(session, NGHTTP2_FLAG_NONE, nullptr, 0);
  uint8_t buf[16384];
  for (;;) {
    const uint8_t* out;
    ssize_t n;
    bool failed = false;
    while ((n = nghttp2_session_mem_send(session, &out)) > 0) {
      if (send(fd, out, static_cast<size_t>(n), MSG_NOSIGNAL) != n) failed = true;
    }
    if (failed || n < 0) break;
    if (!nghttp2_session_want_read(session) && !nghttp2_session_want_write(session)) break;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 5000) <= 0) break;
    const ssize_t got = recv(fd, buf, sizeof buf, 0);
    if (got <= 0 || nghttp2_session_mem_recv(session, buf, static_cast<size_t>(got)) < 0) break;
  }
  nghttp2_session_del(session);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <port> <status-file>\n", argv[0]);
    return 2;
  }
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
  for (;;) {
    const int c = accept(listener, nullptr, nullptr);
    if (c < 0) continue;
    serve(c, argv[2]);
    close(c);
  }
}
