// The grpc probe's exchange (see probes.h): grpc.health.v1.Health/Check over HTTP/2 without
// TLS, with prior knowledge (as upstream's grpc.WithInsecure dial), framed by nghttp2 on a
// non-blocking socket; every step is bounded by the probe's deadline. The messages and the
// verdict are grpc_health.cpp's.
#include <nghttp2/nghttp2.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "roles/kubelet/pods/grpc_health.h"
#include "roles/kubelet/pods/probe_socket.h"
#include "roles/kubelet/pods/probes.h"

namespace k3c::kubelet {
namespace {

using grpc_health::CallResult;
using probe_socket::Deadline;
using probe_socket::remaining_ms;

constexpr size_t kMaxBody = 64 * 1024 + 5;
constexpr auto kDialRetry = std::chrono::milliseconds(100);

// One Check call's state, shared with nghttp2's callbacks.
struct Call {
  CallResult result;
  std::string request;  // the framed HealthCheckRequest
  size_t request_sent = 0;
  int32_t stream_id = -1;
  bool closed = false;
};

Call& call_of(void* user_data) { return *static_cast<Call*>(user_data); }

int on_frame(nghttp2_session*, const nghttp2_frame* frame, void* user_data) {
  Call& call = call_of(user_data);
  if (frame->hd.type == NGHTTP2_SETTINGS && !(frame->hd.flags & NGHTTP2_FLAG_ACK))
    call.result.connected = true;
  if (frame->hd.type == NGHTTP2_GOAWAY && call.result.transport_error.empty())
    call.result.transport_error = "the server sent GOAWAY (" +
                                  std::string(nghttp2_http2_strerror(frame->goaway.error_code)) +
                                  ")";
  return 0;
}

int on_header(nghttp2_session*, const nghttp2_frame* frame, const uint8_t* name, size_t namelen,
              const uint8_t* value, size_t valuelen, uint8_t, void* user_data) {
  Call& call = call_of(user_data);
  if (frame->hd.type != NGHTTP2_HEADERS || frame->hd.stream_id != call.stream_id) return 0;
  const std::string_view n(reinterpret_cast<const char*>(name), namelen);
  const std::string v(reinterpret_cast<const char*>(value), valuelen);
  if (n == ":status") call.result.http_status = std::atoi(v.c_str());
  if (n == "grpc-status") call.result.grpc_status = std::atoi(v.c_str());
  if (n == "grpc-message") call.result.grpc_message = grpc_health::percent_decode(v);
  return 0;
}

int on_data(nghttp2_session*, uint8_t, int32_t stream_id, const uint8_t* data, size_t len,
            void* user_data) {
  Call& call = call_of(user_data);
  if (stream_id != call.stream_id) return 0;
  if (call.result.body.size() + len > kMaxBody) return NGHTTP2_ERR_CALLBACK_FAILURE;
  call.result.body.append(reinterpret_cast<const char*>(data), len);
  return 0;
}

int on_close(nghttp2_session*, int32_t stream_id, uint32_t error_code, void* user_data) {
  Call& call = call_of(user_data);
  if (stream_id != call.stream_id) return 0;
  call.closed = true;
  if (error_code != NGHTTP2_NO_ERROR && call.result.transport_error.empty())
    call.result.transport_error = "stream terminated by RST_STREAM with error code: " +
                                  std::string(nghttp2_http2_strerror(error_code));
  return 0;
}

ssize_t read_request(nghttp2_session*, int32_t, uint8_t* buf, size_t length, uint32_t* data_flags,
                     nghttp2_data_source*, void* user_data) {
  Call& call = call_of(user_data);
  const size_t n = std::min(length, call.request.size() - call.request_sent);
  std::memcpy(buf, call.request.data() + call.request_sent, n);
  call.request_sent += n;
  if (call.request_sent == call.request.size()) *data_flags |= NGHTTP2_DATA_FLAG_EOF;
  return static_cast<ssize_t>(n);
}

bool send_all(int fd, const uint8_t* data, size_t size, Deadline deadline) {
  while (size > 0) {
    pollfd p{fd, POLLOUT, 0};
    if (poll(&p, 1, remaining_ms(deadline)) != 1) return false;
    const ssize_t n = send(fd, data, size, MSG_NOSIGNAL);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

nghttp2_nv header(const std::string& name, const std::string& value) {
  return {reinterpret_cast<uint8_t*>(const_cast<char*>(name.data())),
          reinterpret_cast<uint8_t*>(const_cast<char*>(value.data())), name.size(), value.size(),
          NGHTTP2_NV_FLAG_NONE};
}

// Runs the call on a connected socket until its stream closes, the connection fails or the
// deadline passes.
void exchange(int fd, Call& call, const std::string& authority, Deadline deadline) {
  nghttp2_session_callbacks* callbacks = nullptr;
  if (nghttp2_session_callbacks_new(&callbacks) != 0) {
    call.result.transport_error = "out of memory";
    return;
  }
  nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, on_frame);
  nghttp2_session_callbacks_set_on_header_callback(callbacks, on_header);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, on_data);
  nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, on_close);
  nghttp2_session* session = nullptr;
  const int made = nghttp2_session_client_new(&session, callbacks, &call);
  nghttp2_session_callbacks_del(callbacks);
  if (made != 0) {
    call.result.transport_error = nghttp2_strerror(made);
    return;
  }
  const std::string timeout = std::to_string(std::max(1, remaining_ms(deadline))) + "m";
  const std::string names[] = {":method",      ":scheme", ":path",      ":authority",
                               "content-type", "te",      "user-agent", "grpc-timeout"};
  const std::string values[] = {"POST",
                                "http",
                                grpc_health::kCheckPath,
                                authority,
                                "application/grpc",
                                "trailers",
                                "kube-probe/1.32",
                                timeout};
  nghttp2_nv headers[std::size(names)];
  for (size_t i = 0; i < std::size(names); ++i) headers[i] = header(names[i], values[i]);
  nghttp2_data_provider body{};
  body.read_callback = read_request;
  (void)nghttp2_submit_settings(session, NGHTTP2_FLAG_NONE, nullptr, 0);  // queued; cannot fail
  call.stream_id =
      nghttp2_submit_request(session, nullptr, headers, std::size(headers), &body, nullptr);
  if (call.stream_id < 0) {
    call.result.transport_error = nghttp2_strerror(call.stream_id);
    call.closed = true;
  }
  uint8_t buf[16 * 1024];
  while (!call.closed) {
    const uint8_t* out = nullptr;
    ssize_t n;
    while ((n = nghttp2_session_mem_send(session, &out)) > 0) {
      if (!send_all(fd, out, static_cast<size_t>(n), deadline)) break;
    }
    if (n != 0) {
      if (remaining_ms(deadline) == 0)
        call.result.timed_out = true;
      else
        call.result.transport_error =
            n < 0 ? nghttp2_strerror(static_cast<int>(n)) : "write: connection reset";
      break;
    }
    if (!nghttp2_session_want_read(session) && !nghttp2_session_want_write(session)) {
      // The session ended (a GOAWAY, a protocol error) before the stream did.
      if (call.result.transport_error.empty()) call.result.transport_error = "connection closed";
      break;
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, remaining_ms(deadline));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      call.result.timed_out = true;
      break;
    }
    const ssize_t got = recv(fd, buf, sizeof buf, 0);
    if (got < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (got <= 0) {
      call.result.transport_error = got == 0 ? "error reading from server: EOF"
                                             : std::string("read: ") + std::strerror(errno);
      break;
    }
    const ssize_t fed = nghttp2_session_mem_recv(session, buf, static_cast<size_t>(got));
    if (fed < 0) {
      call.result.transport_error = nghttp2_strerror(static_cast<int>(fed));
      break;
    }
  }
  nghttp2_session_del(session);
}

}  // namespace

ProbeOutcome SocketProbeNetwork::grpc(const ProbeTarget& target, int port,
                                      const std::string& service,
                                      std::chrono::milliseconds timeout) {
  const std::string& host = target.host;
  const std::string address =
      (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port);
  const Deadline deadline = std::chrono::steady_clock::now() + timeout;
  Call call;
  call.request = grpc_health::encode_request(service);
  // As grpc.WithBlock, the dial is retried until the deadline.
  int fd = -1;
  for (;;) {
    std::string why;
    fd = probe_socket::connect_to(target, port, deadline, why);
    if (fd >= 0 || remaining_ms(deadline) == 0) break;
    std::this_thread::sleep_for(std::min<std::chrono::milliseconds>(
        kDialRetry, std::chrono::milliseconds(remaining_ms(deadline))));
  }
  if (fd >= 0) {
    exchange(fd, call, address, deadline);
    close(fd);
  }
  return grpc_health::verdict(call.result, address, timeout);
}

}  // namespace k3c::kubelet
