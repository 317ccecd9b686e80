// A kubelet in another process, over HTTPS (see remote_kubelet.h).
#include "roles/apiserver/remote_kubelet.h"

#include <atomic>
#include <mutex>
#include <thread>

#include "core/percent_encoding.h"
#include "roles/apiserver/content.h"

namespace k3c::apiserver {
namespace {

constexpr std::chrono::seconds kHeaderTimeout{30};
constexpr std::chrono::milliseconds kReadWait{500};
constexpr size_t kBufferLimit = 1 << 20;  // streamed bytes not yet sent to the client

// A 2xx body read from the kubelet by a thread of its own and handed to the client's
// connection as it comes (a log follow). The reader pauses while kBufferLimit bytes wait.
class ProxiedBody final : public http::BodyStream {
 public:
  explicit ProxiedBody(std::unique_ptr<http::Connection> connection)
      : connection_(std::move(connection)) {}
  ~ProxiedBody() override {
    cancel();
    if (reader_.joinable()) reader_.join();
  }
  void set_wake(std::function<void()> wake) override {
    {
      std::lock_guard lock(mu_);
      wake_ = std::move(wake);
    }
    reader_ = std::thread([this] { read(); });
  }
  Chunk poll() override {
    std::lock_guard lock(mu_);
    Chunk chunk;
    chunk.append(std::move(pending_));
    pending_.clear();
    chunk.ended = ended_;
    return chunk;
  }
  void cancel() override {
    if (!cancelled_.exchange(true)) connection_->cancel();
  }

 private:
  void read() {
    while (!cancelled_) {
      // A slow client: wait for it rather than buffer without bound.
      while (!cancelled_ && buffered() >= kBufferLimit)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      Result<std::string> bytes = connection_->read_stream(kReadWait);
      const bool end = !bytes.is_ok() || connection_->stream_ended();
      if (bytes.is_ok() && bytes->empty() && !end) continue;
      std::function<void()> wake;
      {
        std::lock_guard lock(mu_);
        if (bytes.is_ok()) pending_ += *bytes;
        if (end) ended_ = true;
        wake = wake_;
      }
      if (wake) wake();
      if (end) return;
    }
  }
  size_t buffered() {
    std::lock_guard lock(mu_);
    return pending_.size();
  }

  std::unique_ptr<http::Connection> connection_;
  std::atomic<bool> cancelled_{false};
  std::mutex mu_;  // guards the three below
  std::function<void()> wake_;
  std::string pending_;
  bool ended_ = false;
  std::thread reader_;
};

// The API server's own answer, a Status as upstream's proxy errors are (kubectl prints its
// message; a plain-text 503 it would replace by a generic one).
http::Response unreachable(const std::string& node, const std::string& message) {
  return error_response(api_error(Code::kServiceUnavailable,
                                  "cannot reach the kubelet of node " + node + ": " + message));
}

// Headers that belong to one connection, not to the answer: this server sets its own.
bool hop_by_hop(const std::string& name) {  // names are lower-case
  for (const char* h : {"connection", "keep-alive", "proxy-connection", "transfer-encoding",
                        "content-length", "te", "trailer", "upgrade"})
    if (name == h) return true;
  return false;
}

// The kubelet's answer as it gave it: status, end-to-end headers, body.
http::Response whole(const http::ClientResponse& answer) {
  http::Response r;
  r.status = answer.status;
  r.body = answer.body;
  for (const auto& [name, value] : answer.headers)
    if (!hop_by_hop(name)) r.headers.emplace_back(name, value);
  return r;
}

}  // namespace

std::string request_target(const http::Request& request) {
  std::string target = percent_encode(request.path, true);
  char sep = '?';
  for (const auto& [key, value] : request.query) {
    target += sep + percent_encode(key, false) + "=" + percent_encode(value, false);
    sep = '&';
  }
  return target;
}

std::vector<std::pair<std::string, std::string>> forwarded_headers(const http::Request& request) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [name, value] : request.headers) {  // names are lower-case
    if (name == "host" || name == "content-length" || name == "transfer-encoding" ||
        name == "authorization" || name == "cookie" || name.starts_with("impersonate-"))
      continue;
    out.emplace_back(name, value);
  }
  return out;
}

http::Handler remote_kubelet(std::string node, std::string host, uint16_t port,
                             std::shared_ptr<const http::ClientTlsContext> tls) {
  return [node, host, port, tls](http::Request& request) -> http::Response {
    http::Url origin{"https", host, port, "/"};
    auto connection = http::Connection::open(origin, tls, kKubeletConnectTimeout);
    if (!connection.is_ok()) return unreachable(node, connection.status().message());
    http::OutgoingRequest out;
    out.method = request.method;
    out.target = request_target(request);
    out.headers = forwarded_headers(request);
    out.body = request.body;
    if (request.header("upgrade")) {
      auto answer = (*connection)->start_upgrade(out, kHeaderTimeout);
      if (!answer.is_ok()) return unreachable(node, answer.status().message());
      if (answer->status != 101) return whole(*answer);
      http::Response switched;
      switched.status = 101;
      for (const auto& [name, value] : answer->headers) switched.headers.emplace_back(name, value);
      std::shared_ptr<http::Connection> shared = std::move(*connection);
      switched.upgrade = [shared](http::Duplex& client) { shared->splice(client); };
      return switched;
    }
    auto answer = (*connection)->start_stream(out, kHeaderTimeout);
    if (!answer.is_ok()) return unreachable(node, answer.status().message());
    if (answer->status < 200 || answer->status > 299 || (*connection)->stream_ended())
      return whole(*answer);
    http::Response streamed = whole(*answer);
    streamed.stream = std::make_shared<ProxiedBody>(std::move(*connection));
    return streamed;
  };
}

}  // namespace k3c::apiserver
