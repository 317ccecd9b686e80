// The remote-command channels over WebSocket and over SPDY (see internal/command_channels.h).
#include "streaming/internal/command_channels.h"

#include <atomic>
#include <deque>
#include <map>
#include <thread>
#include <nlohmann/json.hpp>

#include "streaming/spdy.h"
#include "streaming/websocket.h"

namespace k3c::streaming::internal {
namespace {

using namespace std::chrono_literals;

// After the final status, how long the client gets to close its side.
constexpr auto kLinger = 2s;
// How long a SPDY client gets to open its streams (upstream's streamCreationTimeout).
constexpr auto kStreamCreation = 30s;
constexpr uint8_t kCloseSignal = 255;  // v5: [255, channel] = no more data on channel
// How long after the switch the first WebSocket message waits. client-go starts reading the
// connection and creating its local streams (stdout, stderr, error) in two goroutines at
// once, and drops a message for a stream it has not created yet ("Unknown stream id ...,
// discarding message"). Our process is running before the 101 goes out, so its first output
// could follow the 101 at once and be dropped: kubectl then printed nothing and exited 0.
// Upstream's runtimes start the process only after the switch, which leaves the client
// that much time; this gives it the same head start.
constexpr auto kClientSetup = 100ms;

class WebSocketChannels final : public CommandChannels {
 public:
  WebSocketChannels(http::Duplex& io, bool v5)
      : ws_(io), v5_(v5), first_write_(std::chrono::steady_clock::now() + kClientSetup) {}

  Result<Input> read(std::chrono::milliseconds timeout) override {
    auto m = ws_.read_message(timeout);
    if (!m.is_ok() && m.status().code() == Code::kTimeout) return m.status();
    Input in;
    if (!m.is_ok() || !*m) {
      in.kind = Input::Kind::kClosed;
      return in;
    }
    const std::string& msg = **m;
    if (msg.empty()) return in;
    const auto channel = static_cast<uint8_t>(msg[0]);
    std::string_view data = std::string_view(msg).substr(1);
    if (channel == kStdin && !data.empty()) {
      in.kind = Input::Kind::kStdin;
      in.data.assign(data);
    } else if (channel == kResize) {
      if (auto size = resize_.feed(data)) {
        in.kind = Input::Kind::kResize;
        std::tie(in.width, in.height) = *size;
      }
    } else if (channel == kCloseSignal && v5_ && !data.empty() && data[0] == kStdin) {
      in.kind = Input::Kind::kStdinEnd;
    }
    // Anything else (an unknown channel, output channels written by the client) is ignored,
    // as upstream's server does.
    return in;
  }

  Status write(int channel, std::string_view data) override {
    if (!client_ready_) {  // written from the output thread and, at the end, the input one
      std::this_thread::sleep_until(first_write_);
      client_ready_ = true;
    }
    std::string message(1, static_cast<char>(channel));
    message.append(data);
    return ws_.send_binary(message);
  }

  Status end_output(int) override { return Status::ok(); }  // the close frame ends them all

  Status finish(const std::string& status_json) override {
    Status sent = write(kError, status_json);
    (void)ws_.send_close(1000);  // best effort, as is the wait for the client's answer below
    const auto until = std::chrono::steady_clock::now() + kLinger;
    while (!ws_.peer_closed() && std::chrono::steady_clock::now() < until) {
      auto m = ws_.read_message(200ms);
      if (!m.is_ok() && m.status().code() != Code::kTimeout) break;
    }
    return sent;
  }

 private:
  WebSocket ws_;
  const bool v5_;
  ResizeDecoder resize_;
  const std::chrono::steady_clock::time_point first_write_;
  std::atomic<bool> client_ready_{false};
};

class SpdyChannels final : public CommandChannels {
 public:
  explicit SpdyChannels(http::Duplex& io) : conn_(io) {}

  // Waits until the client has opened every stream `o` implies (answering each).
  Status open(const runtime::StreamOptions& o) {
    std::vector<std::string> want = {"error"};
    if (o.stdin) want.push_back("stdin");
    if (o.stdout) want.push_back("stdout");
    if (o.stderr && !o.tty) want.push_back("stderr");
    if (o.tty) want.push_back("resize");
    const auto until = std::chrono::steady_clock::now() + kStreamCreation;
    auto complete = [&] {
      for (const std::string& w : want)
        if (!ids_.count(w)) return false;
      return true;
    };
    while (!complete()) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          until - std::chrono::steady_clock::now());
      if (left.count() <= 0)
        return error(Code::kTimeout, "timed out waiting for client to create streams");
      auto in = next(left);
      if (!in.is_ok()) {
        if (in.status().code() == Code::kTimeout) continue;
        return in.status();
      }
      if (in->kind == Input::Kind::kClosed)
        return error(Code::kServiceUnavailable, "the client went away before its streams were up");
      if (in->kind != Input::Kind::kNothing) early_.push_back(std::move(*in));
      if (stdin_end_pending_) early_.push_back({Input::Kind::kStdinEnd, "", 0, 0});
      stdin_end_pending_ = false;
    }
    return Status::ok();
  }

  Result<Input> read(std::chrono::milliseconds timeout) override {
    if (!early_.empty()) {
      Input in = std::move(early_.front());
      early_.pop_front();
      return in;
    }
    if (stdin_end_pending_) {
      stdin_end_pending_ = false;
      return Input{Input::Kind::kStdinEnd, "", 0, 0};
    }
    return next(timeout);
  }

  Status write(int channel, std::string_view data) override {
    auto id = id_of(channel);
    if (!id) return Status::ok();  // the client did not open that stream
    return conn_.send_data(*id, data, false);
  }

  Status end_output(int channel) override {
    auto id = id_of(channel);
    if (!id) return Status::ok();
    return conn_.send_data(*id, "", true);
  }

  Status finish(const std::string& status_json) override {
    Status sent = Status::ok();
    if (auto id = id_of(kError)) sent = conn_.send_data(*id, status_json, true);
    // The client closes the connection once it has read the status.
    const auto until = std::chrono::steady_clock::now() + kLinger;
    while (std::chrono::steady_clock::now() < until) {
      auto f = conn_.read_frame(200ms);
      if (f.is_ok() && (!*f || (*f)->type == spdy::FrameType::kGoAway)) break;
      if (!f.is_ok() && f.status().code() != Code::kTimeout) break;
    }
    return sent;
  }

 private:
  std::optional<uint32_t> id_of(int channel) const {
    static const char* names[] = {"stdin", "stdout", "stderr", "error", "resize"};
    if (channel < 0 || channel > 4) return std::nullopt;
    auto it = ids_.find(names[channel]);
    if (it == ids_.end()) return std::nullopt;
    return it->second;
  }

  // One frame's worth of input.
  Result<Input> next(std::chrono::milliseconds timeout) {
    auto f = conn_.read_frame(timeout);
    if (!f.is_ok() && f.status().code() == Code::kTimeout) return f.status();
    Input in;
    if (!f.is_ok() || !*f) {
      in.kind = Input::Kind::kClosed;
      return in;
    }
    spdy::Frame& frame = **f;
    switch (frame.type) {
      case spdy::FrameType::kSynStream: {
        const std::string type = frame.header("streamtype");
        if (type.empty() || ids_.count(type)) {
          (void)conn_.send_reset(frame.stream_id, spdy::kProtocolError);  // best effort
          return in;
        }
        ids_[type] = frame.stream_id;
        types_[frame.stream_id] = type;
        RETURN_IF_ERROR(conn_.send_reply(frame.stream_id));
        return in;
      }
      case spdy::FrameType::kData: {
        auto it = types_.find(frame.stream_id);
        if (it == types_.end()) return in;
        if (it->second == "stdin") {
          if (!frame.data.empty()) {
            in.kind = Input::Kind::kStdin;
            in.data = std::move(frame.data);
            stdin_end_pending_ = frame.fin();  // delivered after the data
          } else if (frame.fin()) {
            in.kind = Input::Kind::kStdinEnd;
          }
        } else if (it->second == "resize") {
          if (auto size = resize_.feed(frame.data)) {
            in.kind = Input::Kind::kResize;
            std::tie(in.width, in.height) = *size;
          }
        }
        return in;
      }
      case spdy::FrameType::kRstStream:
        if (types_.count(frame.stream_id) && types_[frame.stream_id] == "stdin")
          in.kind = Input::Kind::kStdinEnd;
        return in;
      case spdy::FrameType::kGoAway:
        in.kind = Input::Kind::kClosed;
        return in;
      default:
        return in;
    }
  }

  spdy::SpdyConnection conn_;
  std::map<std::string, uint32_t> ids_;    // stream type -> id
  std::map<uint32_t, std::string> types_;  // id -> stream type
  std::deque<Input> early_;                // input that came while the streams were set up
  bool stdin_end_pending_ = false;         // a FIN came with stdin data: EOF comes next
  ResizeDecoder resize_;
};

std::optional<std::pair<uint16_t, uint16_t>> parse_size(std::string_view text) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) return std::nullopt;
  auto dim = [&](const char* key) -> int64_t {
    auto it = j.find(key);
    return it != j.end() && it->is_number_integer() ? it->get<int64_t>() : -1;
  };
  int64_t w = dim("Width"), h = dim("Height");
  if (w < 0 || h < 0 || w > 0xFFFF || h > 0xFFFF) return std::nullopt;
  return std::pair<uint16_t, uint16_t>(static_cast<uint16_t>(w), static_cast<uint16_t>(h));
}

}  // namespace

std::optional<std::pair<uint16_t, uint16_t>> ResizeDecoder::feed(std::string_view bytes) {
  buffer_.append(bytes);
  if (buffer_.size() > 4096) buffer_.erase(0, buffer_.size() - 4096);  // garbage: keep it bounded
  std::optional<std::pair<uint16_t, uint16_t>> last;
  size_t nl;
  while ((nl = buffer_.find('\n')) != std::string::npos) {
    if (auto size = parse_size(std::string_view(buffer_).substr(0, nl))) last = size;
    buffer_.erase(0, nl + 1);
  }
  if (!buffer_.empty()) {
    if (auto size = parse_size(buffer_)) {
      last = size;
      buffer_.clear();
    }
  }
  return last;
}

std::unique_ptr<CommandChannels> websocket_channels(http::Duplex& io, bool v5) {
  return std::make_unique<WebSocketChannels>(io, v5);
}

Result<std::unique_ptr<CommandChannels>> spdy_channels(http::Duplex& io,
                                                       const runtime::StreamOptions& options) {
  auto ch = std::make_unique<SpdyChannels>(io);
  RETURN_IF_ERROR(ch->open(options));
  return std::unique_ptr<CommandChannels>(std::move(ch));
}

}  // namespace k3c::streaming::internal
