#include "client/in_process_client.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>

#include "client/line_buffer.h"

namespace k3c::client {
namespace {

// Reads a BodyStream on the caller's thread: the producer's wake signals a condition
// variable, next() polls and splits the chunks into lines.
class StreamLines final : public WatchLines {
 public:
  explicit StreamLines(std::shared_ptr<http::BodyStream> stream) : stream_(std::move(stream)) {
    stream_->set_wake([this] {
      std::lock_guard lock(mu_);
      woken_ = true;
      cv_.notify_all();
    });
  }
  ~StreamLines() override { cancel(); }

  std::optional<std::string> next(std::chrono::milliseconds wait) override {
    auto deadline = std::chrono::steady_clock::now() + wait;
    while (true) {
      if (auto line = pop_line()) return line;
      if (ended_ || cancelled_) return std::nullopt;
      {
        std::unique_lock lock(mu_);
        if (!woken_ && !cancelled_) {
          if (!cv_.wait_until(lock, deadline, [&] { return woken_ || cancelled_; }))
            return std::nullopt;
        }
        woken_ = false;
      }
      if (cancelled_) return std::nullopt;
      http::BodyStream::Chunk chunk = stream_->poll();
      for (auto& piece : chunk.pieces) pending_.push_back(std::move(piece));
      if (chunk.ended) ended_ = true;
      // A poll may leave more queued than one chunk carries: poll again before sleeping.
      if (!chunk.empty()) {
        std::lock_guard lock(mu_);
        woken_ = true;
      }
    }
  }

  bool ended() const override { return ended_ && lines_.empty() && pending_.empty(); }

  void cancel() override {
    {
      std::lock_guard lock(mu_);
      if (cancelled_) return;
      cancelled_ = true;
      cv_.notify_all();
    }
    stream_->cancel();
  }

 private:
  // The watch cache's pieces are mostly whole event lines, shared by every watcher: such a
  // piece is returned as it is. Copying each into the line buffer first doubled what a
  // lagging informer held (9 MB of its backlog at 10,000 pods, bench/hollow_nodes.py).
  std::optional<std::string> pop_line() {
    while (true) {
      if (auto line = lines_.pop(ended_ && pending_.empty())) return line;
      if (pending_.empty()) return std::nullopt;
      std::shared_ptr<const std::string> piece = std::move(pending_.front());
      pending_.pop_front();
      if (lines_.empty() && !piece->empty() && piece->find('\n') == piece->size() - 1)
        return std::string(*piece, 0, piece->size() - 1);
      lines_.append(*piece);
    }
  }

  std::shared_ptr<http::BodyStream> stream_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool woken_ = true;  // poll once at the start: events may already be queued
  std::atomic<bool> cancelled_{false};
  bool ended_ = false;
  std::deque<std::shared_ptr<const std::string>> pending_;  // polled, not yet split
  LineBuffer lines_;
};

}  // namespace

InProcessClient::InProcessClient(http::Handler handler, http::PeerIdentity identity)
    : handler_(std::move(handler)), identity_(std::move(identity)) {}

Result<http::Response> InProcessClient::call(std::string_view method, std::string_view target,
                                             std::string_view body, std::string_view content_type) {
  auto parsed = http::parse_target(target);
  if (!parsed) return error(Code::kBadRequest, "malformed request target: " + std::string(target));
  http::Request request;
  request.method = std::string(method);
  request.target = std::string(target);
  request.path = std::move(parsed->path);
  request.query = std::move(parsed->query);
  request.headers.emplace_back("accept", "application/json");
  request.headers.emplace_back("user-agent", "k3c-in-process");
  if (!body.empty()) request.headers.emplace_back("content-type", std::string(content_type));
  request.body = std::string(body);
  request.peer = identity_;
  request.remote_address = "in-process";
  return handler_(request);
}

Result<Reply> InProcessClient::request(std::string_view method, std::string_view target,
                                       std::string_view body, std::string_view content_type) {
  auto response = call(method, target, body, content_type);
  if (!response.is_ok()) return response.status();
  if (response->stream) {
    response->stream->cancel();
    return error(Code::kBadRequest,
                 "a streaming answer to a plain request: " + std::string(target));
  }
  return Reply{response->status, std::move(response->body)};
}

Result<std::unique_ptr<WatchLines>> InProcessClient::watch(std::string_view target) {
  auto response = call("GET", target, {}, {});
  if (!response.is_ok()) return response.status();
  if (response->status < 200 || response->status > 299 || !response->stream) {
    return status_of(Reply{response->status, std::move(response->body)});
  }
  return std::unique_ptr<WatchLines>(std::make_unique<StreamLines>(response->stream));
}

}  // namespace k3c::client
