// The server side of the gRPC health checking protocol for tests of the kubelet's grpc
// probes, on nghttp2 (cleartext HTTP/2): serve(fd) answers grpc.health.v1.Health/Check on one
// accepted connection with what `status(service)` says: a ServingStatus (1 SERVING,
// 2 NOT_SERVING, ...), or a negative value -c for an error with grpc-status c ("unknown
// service"). Other methods get grpc-status 12 (Unimplemented). Used by unit.kubelet in a
// thread and by k3c_grpc_health_server (test/integration) as a process.
#pragma once

#include <nghttp2/nghttp2.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <functional>
#include <map>
#include <string>

namespace k3c::testing {

class GrpcHealthService {
 public:
  using StatusFn = std::function<int(const std::string& service)>;
  explicit GrpcHealthService(StatusFn status) : status_(std::move(status)) {}

  // Serves the connection until the client closes it or is silent for 5 s.
  void serve(int fd) {
    streams_.clear();
    nghttp2_session_callbacks* callbacks;
    nghttp2_session_callbacks_new(&callbacks);
    nghttp2_session_callbacks_set_on_header_callback(callbacks, on_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, on_data);
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, on_frame);
    nghttp2_session* session;
    nghttp2_session_server_new(&session, callbacks, this);
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
  // The service name the last Check asked about.
  const std::string& last_service() const { return last_service_; }

 private:
  struct Stream {
    std::string path;
    std::string request;  // DATA
    std::string body;     // the framed response
    size_t sent = 0;
  };

  static GrpcHealthService& self(void* user_data) {
    return *static_cast<GrpcHealthService*>(user_data);
  }
  // A header over `name` and `value`, which must outlive the submit call (nghttp2 copies).
  static nghttp2_nv nv(const char* name, const char* value) {
    return {reinterpret_cast<uint8_t*>(const_cast<char*>(name)),
            reinterpret_cast<uint8_t*>(const_cast<char*>(value)),
            std::char_traits<char>::length(name), std::char_traits<char>::length(value),
            NGHTTP2_NV_FLAG_NONE};
  }
  static int on_header(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name,
                       size_t namelen, const uint8_t* value, size_t valuelen, uint8_t,
                       void* user_data) {
    if (std::string(reinterpret_cast<const char*>(name), namelen) == ":path")
      self(user_data).streams_[frame->hd.stream_id].path.assign(
          reinterpret_cast<const char*>(value), valuelen);
    return 0;
  }
  static int on_data(nghttp2_session*, uint8_t, int32_t stream_id, const uint8_t* data, size_t len,
                     void* user_data) {
    self(user_data).streams_[stream_id].request.append(reinterpret_cast<const char*>(data), len);
    return 0;
  }
  static ssize_t read_body(nghttp2_session* session, int32_t stream_id, uint8_t* buf, size_t length,
                           uint32_t* flags, nghttp2_data_source*, void* user_data) {
    Stream& s = self(user_data).streams_[stream_id];
    const size_t n = std::min(length, s.body.size() - s.sent);
    std::copy_n(s.body.data() + s.sent, n, buf);
    s.sent += n;
    if (s.sent == s.body.size()) {  // the trailers end the stream
      *flags |= NGHTTP2_DATA_FLAG_EOF | NGHTTP2_DATA_FLAG_NO_END_STREAM;
      nghttp2_nv trailers[] = {nv("grpc-status", "0")};
      nghttp2_submit_trailer(session, stream_id, trailers, 1);
    }
    return static_cast<ssize_t>(n);
  }
  // The request's service: HealthCheckRequest field 1 (a short string) after the 5-byte prefix.
  static std::string service_of(const std::string& request) {
    if (request.size() < 7 || request[5] != '\x0a') return "";
    return request.substr(7, static_cast<uint8_t>(request[6]));
  }
  static int on_frame(nghttp2_session* session, const nghttp2_frame* frame, void* user_data) {
    GrpcHealthService& service = self(user_data);
    const bool done = (frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) &&
                      (frame->hd.flags & NGHTTP2_FLAG_END_STREAM);
    if (!done) return 0;
    const int32_t id = frame->hd.stream_id;
    Stream& s = service.streams_[id];
    const int status = s.path == "/grpc.health.v1.Health/Check"
                           ? service.status_(service.last_service_ = service_of(s.request))
                           : -12;
    if (status < 0) {  // trailers only
      const std::string code = std::to_string(-status);
      nghttp2_nv only[] = {nv(":status", "200"), nv("content-type", "application/grpc"),
                           nv("grpc-status", code.c_str()),
                           nv("grpc-message", "unknown%20service")};
      return nghttp2_submit_response(session, id, only, 4, nullptr);
    }
    // HealthCheckResponse{status}: field 1, varint; proto3 leaves out the zero.
    const std::string message =
        status == 0 ? std::string() : std::string{'\x08', static_cast<char>(status)};
    s.body = std::string{'\0', '\0', '\0', '\0', static_cast<char>(message.size())} + message;
    nghttp2_nv headers[] = {nv(":status", "200"), nv("content-type", "application/grpc")};
    nghttp2_data_provider provider{};
    provider.read_callback = read_body;
    return nghttp2_submit_response(session, id, headers, 2, &provider);
  }

  StatusFn status_;
  std::map<int32_t, Stream> streams_;
  std::string last_service_;
};

}  // namespace k3c::testing
