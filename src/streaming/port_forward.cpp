// portforward.k8s.io over SPDY, plain or in a WebSocket (see port_forward.h).
#include "streaming/port_forward.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <map>
#include <memory>
#include <set>
#include <system_error>
#include <thread>

#include "core/log.h"
#include "streaming/internal/http_text.h"
#include "streaming/spdy.h"
#include "streaming/websocket.h"

namespace k3c::streaming {
namespace {

using internal::iequals;
using internal::plain_text;

using namespace std::chrono_literals;

constexpr const char* kProtocol = "portforward.k8s.io";
constexpr const char* kWebSocketProtocol = "SPDY/3.1+portforward.k8s.io";
constexpr auto kForwardPollEvery = 200ms;
constexpr size_t kForwardChunk = 32 << 10;

// One forwarded connection: the client's error and data streams and the pod-side socket.
struct Forward {
  std::string port_text;
  uint16_t port = 0;
  uint32_t error_id = 0, data_id = 0;
  int fd = -1;
  std::atomic<bool> stop{false};
  std::atomic<bool> done{false};  // the pod side ended (or the dial failed): both streams FINed
  std::thread reader;             // socket -> data stream

  ~Forward() {
    stop = true;
    if (reader.joinable()) reader.join();
    if (fd >= 0) ::close(fd);
  }
};

class Tunnel {
 public:
  Tunnel(http::Duplex& io, const PortForwardOptions& options, const PortDialer& dial)
      : conn_(io), options_(options), dial_(dial) {}

  void run() {
    auto idle_since = std::chrono::steady_clock::now();
    for (;;) {
      auto f = conn_.read_frame(1s);
      if (!f.is_ok()) {
        if (f.status().code() != Code::kTimeout) break;
        if (std::chrono::steady_clock::now() - idle_since > options_.idle_timeout) break;
        continue;
      }
      idle_since = std::chrono::steady_clock::now();
      if (!*f || (*f)->type == spdy::FrameType::kGoAway) break;
      if (!handle(**f).is_ok()) break;
    }
    // Dropping the last owners stops the readers and closes the sockets.
    pending_.clear();
    by_stream_.clear();
    forwards_.clear();
  }

 private:
  Status handle(spdy::Frame& f) {
    reap();
    switch (f.type) {
      case spdy::FrameType::kSynStream:
        return open_stream(f);
      case spdy::FrameType::kData: {
        auto it = by_stream_.find(f.stream_id);
        if (it == by_stream_.end()) return Status::ok();  // a stream already reset, or unknown
        Forward& fw = *it->second;
        if (f.stream_id != fw.data_id || fw.fd < 0) return Status::ok();  // error stream: no input
        if (!f.data.empty() && !write_socket(fw, f.data)) {
          close_forward(fw.data_id, spdy::kCancel);
          return Status::ok();
        }
        if (f.fin()) ::shutdown(fw.fd, SHUT_WR);  // the client's side of the TCP stream ended
        return Status::ok();
      }
      case spdy::FrameType::kRstStream: {
        auto it = by_stream_.find(f.stream_id);
        if (it != by_stream_.end() && f.stream_id == it->second->data_id)
          close_forward(f.stream_id, 0);
        return Status::ok();
      }
      default:
        return Status::ok();
    }
  }

  Status open_stream(spdy::Frame& f) {
    const std::string type = f.header("streamtype");
    std::string request_id = f.header("requestid");
    if (request_id.empty()) {
      // Old clients: the data stream follows its error stream (ids two apart).
      request_id = std::to_string(type == "data" ? f.stream_id - 2 : f.stream_id);
    }
    if (type != "error" && type != "data")
      return conn_.send_reset(f.stream_id, spdy::kProtocolError);
    std::shared_ptr<Forward>& fw = pending_[request_id];
    if (!fw) {
      if (forwards_.size() >= options_.max_connections) {
        pending_.erase(request_id);
        return conn_.send_reset(f.stream_id, spdy::kRefusedStream);
      }
      fw = std::make_shared<Forward>();
    }
    uint32_t& slot = type == "error" ? fw->error_id : fw->data_id;
    if (slot != 0) return conn_.send_reset(f.stream_id, spdy::kProtocolError);
    slot = f.stream_id;
    fw->port_text = f.header("port");
    by_stream_[f.stream_id] = fw;
    forwards_.insert(fw);
    RETURN_IF_ERROR(conn_.send_reply(f.stream_id));
    if (fw->error_id == 0 || fw->data_id == 0) return Status::ok();
    pending_.erase(request_id);
    start(*fw);
    return Status::ok();
  }

  // Both streams are open: dial the pod's port and start copying its answers back.
  void start(Forward& fw) {
    uint16_t port = 0;
    auto [end, ec] =
        std::from_chars(fw.port_text.data(), fw.port_text.data() + fw.port_text.size(), port);
    std::string failure;
    if (fw.port_text.empty() || ec != std::errc() ||
        end != fw.port_text.data() + fw.port_text.size() || port == 0) {
      failure = "invalid port \"" + fw.port_text + "\"";
    } else {
      auto fd = dial_(port);
      if (fd.is_ok()) {
        fw.fd = *fd;
        fw.port = port;
      } else {
        failure = "error forwarding port " + std::to_string(port) + " to pod " + options_.pod +
                  ", uid : " + fd.status().message();
      }
    }
    if (!failure.empty()) {
      log::for_role("kubelet")->info("port-forward: {}", failure);
      (void)conn_.send_data(fw.error_id, failure, true);  // the client may be gone already
      (void)conn_.send_data(fw.data_id, "", true);
      fw.done = true;
      return;
    }
    try {
      fw.reader = std::thread([this, &fw] { copy_to_client(fw); });
    } catch (const std::system_error& e) {  // no thread to be had: this connection fails
      (void)conn_.send_data(fw.error_id, std::string("cannot forward: ") + e.what(), true);
      (void)conn_.send_data(fw.data_id, "", true);
      fw.done = true;
    }
  }

  void copy_to_client(Forward& fw) {
    std::string buffer(kForwardChunk, '\0');
    while (!fw.stop) {
      pollfd p{fw.fd, POLLIN, 0};
      int r = ::poll(&p, 1, static_cast<int>(kForwardPollEvery.count()));
      if (r <= 0) continue;
      ssize_t n = ::read(fw.fd, buffer.data(), buffer.size());
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (n > 0) {
        if (!conn_.send_data(fw.data_id, std::string_view(buffer.data(), size_t(n)), false).is_ok())
          return;
        continue;
      }
      // EOF (or a reset) from the pod: end both streams; the client closes its side.
      (void)conn_.send_data(fw.data_id, "", true);  // best effort: the client may be gone
      (void)conn_.send_data(fw.error_id, "", true);
      fw.done = true;
      return;
    }
  }

  // Forgets the connections whose pod side has ended (their streams are FINed), so that
  // clients that never reset their streams do not use up the bound.
  void reap() {
    for (auto it = forwards_.begin(); it != forwards_.end();) {
      std::shared_ptr<Forward> fw = *it;
      if (!fw->done) {
        ++it;
        continue;
      }
      by_stream_.erase(fw->data_id);
      by_stream_.erase(fw->error_id);
      it = forwards_.erase(it);
    }
  }

  bool write_socket(Forward& fw, std::string_view data) {
    while (!data.empty()) {
      ssize_t n = ::send(fw.fd, data.data(), data.size(), MSG_NOSIGNAL);
      if (n > 0) {
        data.remove_prefix(static_cast<size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno != EAGAIN) return false;
      pollfd p{fw.fd, POLLOUT, 0};
      if (::poll(&p, 1, 30000) <= 0) return false;  // the pod does not read for 30 s
    }
    return true;
  }

  void close_forward(uint32_t data_id, uint32_t reset_status) {
    auto it = by_stream_.find(data_id);
    if (it == by_stream_.end()) return;
    std::shared_ptr<Forward> fw = it->second;
    if (reset_status != 0) (void)conn_.send_reset(data_id, reset_status);  // best effort
    by_stream_.erase(fw->data_id);
    by_stream_.erase(fw->error_id);
    forwards_.erase(fw);
  }

  spdy::SpdyConnection conn_;
  const PortForwardOptions& options_;
  const PortDialer& dial_;
  std::map<std::string, std::shared_ptr<Forward>> pending_;  // by requestid, one stream open
  std::map<uint32_t, std::shared_ptr<Forward>> by_stream_;
  std::set<std::shared_ptr<Forward>> forwards_;  // every open one (bounded)
};

// Every protocol the client lists in X-Stream-Protocol-Version.
bool offers(const http::Request& request, std::string_view protocol) {
  for (const auto& [k, v] : request.headers) {
    if (!iequals(k, "x-stream-protocol-version")) continue;
    if (v.find(protocol) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

bool is_port_forward_upgrade(const http::Request& request) {
  if (is_websocket_request(request)) return true;
  auto upgrade = request.header("upgrade");
  return upgrade && iequals(*upgrade, "SPDY/3.1");
}

void run_port_forward(http::Duplex& io, const PortForwardOptions& options, const PortDialer& dial) {
  Tunnel(io, options, dial).run();
}

http::Response serve_port_forward(const http::Request& request, PortForwardOptions options,
                                  PortDialer dial) {
  auto shared = std::make_shared<std::pair<PortForwardOptions, PortDialer>>(std::move(options),
                                                                            std::move(dial));
  if (is_websocket_request(request)) {
    if (!choose_subprotocol(request, {kWebSocketProtocol}))
      return plain_text(400, std::string("unable to upgrade: the websocket subprotocol ") +
                                 kWebSocketProtocol + " was not offered");
    auto answer = websocket_handshake(request, kWebSocketProtocol);
    if (!answer.is_ok()) return plain_text(400, answer.status().message());
    answer->upgrade = [shared](http::Duplex& io) {
      WebSocket ws(io, {.max_message = 1 << 20, .allow_text = false});
      WebSocketDuplex tunnel(ws, io);
      run_port_forward(tunnel, shared->first, shared->second);
      tunnel.close();
    };
    return std::move(*answer);
  }
  auto upgrade = request.header("upgrade");
  if (!upgrade || !iequals(*upgrade, "SPDY/3.1"))
    return plain_text(400,
                      "unable to upgrade: missing upgrade headers in request (SPDY/3.1, or a "
                      "websocket with SPDY/3.1+portforward.k8s.io)");
  if (!offers(request, kProtocol))
    return plain_text(403, std::string("unable to upgrade: unable to negotiate protocol: server "
                                       "supports [") +
                               kProtocol + "]");
  http::Response r;
  r.status = 101;
  r.set_header("Connection", "Upgrade");
  r.set_header("Upgrade", "SPDY/3.1");
  r.set_header("X-Stream-Protocol-Version", kProtocol);
  r.upgrade = [shared](http::Duplex& io) { run_port_forward(io, shared->first, shared->second); };
  return r;
}

}  // namespace k3c::streaming
