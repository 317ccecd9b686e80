// The HTTPS transport (see https_client.h).
#include "client/https_client.h"

#include <atomic>

#include "client/line_buffer.h"

namespace k3c::client {
namespace {

using SteadyClock = std::chrono::steady_clock;

// A watch's lines read from its own connection on the caller's thread.
class ConnectionLines final : public WatchLines {
 public:
  explicit ConnectionLines(std::unique_ptr<http::Connection> connection)
      : connection_(std::move(connection)) {
    ended_ = connection_->stream_ended();
  }

  std::optional<std::string> next(std::chrono::milliseconds wait) override {
    const auto deadline = SteadyClock::now() + wait;
    while (true) {
      if (auto line = lines_.pop(ended_)) return line;
      if (ended_ || cancelled_) return std::nullopt;
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now());
      if (left.count() <= 0) return std::nullopt;
      Result<std::string> bytes = connection_->read_stream(left);
      if (!bytes.is_ok()) {
        ended_ = true;  // the informer resumes from the last version it saw
        continue;
      }
      lines_.append(*bytes);
      if (connection_->stream_ended()) ended_ = true;
    }
  }
  bool ended() const override { return ended_ && lines_.empty(); }
  void cancel() override {
    cancelled_ = true;
    connection_->cancel();
  }

 private:
  std::unique_ptr<http::Connection> connection_;
  LineBuffer lines_;
  bool ended_ = false;
  std::atomic<bool> cancelled_{false};
};

}  // namespace

Result<std::unique_ptr<HttpsClient>> HttpsClient::make(HttpsClientOptions options) {
  ASSIGN_OR_RETURN(http::Url origin, http::parse_url(options.server));
  if (origin.scheme != "https") {
    return error(Code::kInvalid, "the server must be an https:// URL: " + options.server);
  }
  ASSIGN_OR_RETURN(auto tls, http::ClientTlsContext::make(options.tls));
  return std::make_unique<HttpsClient>(std::move(options), std::move(origin), std::move(tls));
}

HttpsClient::HttpsClient(HttpsClientOptions options, http::Url origin,
                         std::shared_ptr<const http::ClientTlsContext> tls)
    : options_(std::move(options)), origin_(std::move(origin)), tls_(std::move(tls)) {}

Result<std::unique_ptr<http::Connection>> HttpsClient::connect() const {
  return http::Connection::open(origin_, tls_, options_.connect_timeout);
}

std::unique_ptr<http::Connection> HttpsClient::take_idle() {
  std::lock_guard lock(mu_);
  const auto now = SteadyClock::now();
  while (!idle_.empty()) {
    Idle idle = std::move(idle_.back());
    idle_.pop_back();
    // The newest is taken first; once one is too old, every older one is too.
    if (now - idle.since < options_.idle_keep) return std::move(idle.connection);
    idle_.clear();
  }
  return nullptr;
}

void HttpsClient::give_back(std::unique_ptr<http::Connection> connection) {
  if (!connection || !connection->reusable()) return;
  std::lock_guard lock(mu_);
  if (idle_.size() >= options_.max_idle_connections) return;  // closed as it goes
  idle_.push_back({std::move(connection), SteadyClock::now()});
}

http::OutgoingRequest HttpsClient::outgoing(std::string_view method, std::string_view target,
                                            std::string_view body,
                                            std::string_view content_type) const {
  http::OutgoingRequest out;
  out.method = std::string(method);
  out.target = std::string(target);
  out.headers.emplace_back("Accept", "application/json");
  if (!body.empty()) out.headers.emplace_back("Content-Type", std::string(content_type));
  if (!options_.bearer_token.empty()) {
    out.headers.emplace_back("Authorization", "Bearer " + options_.bearer_token);
  }
  out.body = std::string(body);
  return out;
}

Result<Reply> HttpsClient::request(std::string_view method, std::string_view target,
                                   std::string_view body, std::string_view content_type) {
  const http::OutgoingRequest out = outgoing(method, target, body, content_type);
  std::unique_ptr<http::Connection> connection = take_idle();
  const bool reused = connection != nullptr;
  if (!connection) {
    ASSIGN_OR_RETURN(connection, connect());
  }
  Result<http::ClientResponse> response =
      connection->exchange(out, options_.request_timeout, options_.body_limit);
  // The server may have closed a kept-alive connection just as it was taken.
  if (!response.is_ok() && reused && method != "POST" &&
      response.status().code() == Code::kServiceUnavailable) {
    ASSIGN_OR_RETURN(connection, connect());
    response = connection->exchange(out, options_.request_timeout, options_.body_limit);
  }
  if (!response.is_ok()) return response.status();
  give_back(std::move(connection));
  return Reply{response->status, std::move(response->body)};
}

Result<std::unique_ptr<WatchLines>> HttpsClient::watch(std::string_view target) {
  ASSIGN_OR_RETURN(std::unique_ptr<http::Connection> connection, connect());
  ASSIGN_OR_RETURN(http::ClientResponse response,
                   connection->start_stream(outgoing("GET", target, {}, {}),
                                            options_.request_timeout));
  if (response.status < 200 || response.status > 299) {
    return status_of(Reply{response.status, std::move(response.body)});
  }
  return std::unique_ptr<WatchLines>(std::make_unique<ConnectionLines>(std::move(connection)));
}

}  // namespace k3c::client
