// The remote-command handshake, the final status, and the pump that copies bytes between a
// runtime session and the client's channels (see remote_command.h).
#include "streaming/remote_command.h"

#include <errno.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <nlohmann/json.hpp>
#include <system_error>
#include <thread>

#include "core/go_format.h"
#include "core/log.h"
#include "streaming/internal/command_channels.h"
#include "streaming/internal/http_text.h"
#include "streaming/websocket.h"

namespace k3c::streaming {
namespace {

using internal::iequals;
using internal::plain_text;

using namespace std::chrono_literals;
using internal::Input;

constexpr const char* kV5 = "v5.channel.k8s.io";
constexpr const char* kV4 = "v4.channel.k8s.io";
constexpr auto kPollEvery = 200ms;
constexpr size_t kCopyChunk = 32 << 10;

bool flag(const http::Request& request, std::string_view name) {
  auto v = request.param(name);
  return v && (*v == "1" || *v == "true");
}

// Every protocol the client lists in X-Stream-Protocol-Version (repeated or comma-separated).
std::vector<std::string> stream_protocols(const http::Request& request) {
  std::vector<std::string> out;
  for (const auto& [k, v] : request.headers) {
    if (!iequals(k, "x-stream-protocol-version")) continue;
    size_t start = 0;
    while (start <= v.size()) {
      size_t comma = v.find(',', start);
      if (comma == std::string::npos) comma = v.size();
      std::string token = v.substr(start, comma - start);
      token.erase(0, token.find_first_not_of(' '));
      token.erase(token.find_last_not_of(' ') + 1);
      if (!token.empty()) out.push_back(token);
      start = comma + 1;
    }
  }
  return out;
}

// Writes all of `data` to a non-blocking fd, waiting for room while `keep_going` holds.
bool write_fd(int fd, std::string_view data, const std::function<bool()>& keep_going) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n > 0) {
      data.remove_prefix(static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN) return false;  // EPIPE: the process closed its stdin
    if (!keep_going()) return false;
    pollfd p{fd, POLLOUT, 0};
    (void)::poll(&p, 1, static_cast<int>(kPollEvery.count()));
  }
  return true;
}

// Copies stdout and stderr to their channels until both end or `stop` is set. False when
// the client could not be written to.
bool copy_outputs(internal::CommandChannels& ch, runtime::StreamSession& s,
                  const std::atomic<bool>& stop) {
  struct Output {
    int fd;
    int channel;
  };
  std::vector<Output> open;
  if (s.stdout_fd() >= 0) open.push_back({s.stdout_fd(), internal::kStdout});
  if (s.stderr_fd() >= 0) open.push_back({s.stderr_fd(), internal::kStderr});
  std::string buffer(kCopyChunk, '\0');
  while (!open.empty() && !stop) {
    std::vector<pollfd> fds;
    for (const Output& o : open) fds.push_back({o.fd, POLLIN, 0});
    int r = ::poll(fds.data(), fds.size(), static_cast<int>(kPollEvery.count()));
    if (r < 0 && errno != EINTR) return true;
    for (size_t i = fds.size(); i-- > 0;) {
      if (fds[i].revents == 0) continue;
      ssize_t n = ::read(open[i].fd, buffer.data(), buffer.size());
      if (n > 0) {
        if (!ch.write(open[i].channel, std::string_view(buffer.data(), static_cast<size_t>(n)))
                 .is_ok())
          return false;
        continue;
      }
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      // EOF, or EIO from a terminal whose other side has closed.
      (void)ch.end_output(open[i].channel);  // a failure shows on the next write or finish
      open.erase(open.begin() + static_cast<ptrdiff_t>(i));
    }
  }
  return true;
}

// Runs one session over `ch`: this thread takes the client's input, a second thread copies
// the output and then waits for the exit code.
void pump(internal::CommandChannels& ch, runtime::StreamSession& s, const CommandRequest& what) {
  std::atomic<bool> client_gone{false};
  std::atomic<bool> ended{false};
  Result<int> exit = error(Code::kServiceUnavailable, "not ended");  // written by `out`
  std::thread out;
  try {
    out = std::thread([&] {
      if (!copy_outputs(ch, s, client_gone)) client_gone = true;
      if (client_gone) s.cancel();
      exit = s.wait();
      ended = true;
    });
  } catch (const std::system_error& e) {  // no thread to be had: end the session
    s.cancel();
    (void)ch.finish(command_status(what, error(Code::kInternal, e.what())));
    return;
  }
  const int stdin_fd = s.stdin_fd();
  bool stdin_open = stdin_fd >= 0;
  auto keep_going = [&] { return !ended && !client_gone; };
  while (!ended && !client_gone) {
    auto in = ch.read(kPollEvery);
    if (!in.is_ok()) {
      if (in.status().code() == Code::kTimeout) continue;
      log::for_role("kubelet")->info("exec/attach session: the client's side failed: {}",
                                     in.status().message());
      client_gone = true;
      break;
    }
    switch (in->kind) {
      case Input::Kind::kStdin:
        if (stdin_open && !write_fd(stdin_fd, in->data, keep_going)) {
          stdin_open = false;
          s.close_stdin();
        }
        break;
      case Input::Kind::kStdinEnd:
        if (stdin_open) s.close_stdin();
        stdin_open = false;
        break;
      case Input::Kind::kResize:
        (void)s.resize(in->width, in->height);  // kInvalid without a tty: nothing to resize
        break;
      case Input::Kind::kClosed:
        log::for_role("kubelet")->info("exec/attach session: the client closed the connection");
        client_gone = true;
        break;
      case Input::Kind::kNothing:
        break;
    }
  }
  if (client_gone) s.cancel();  // an exec'd process is killed; attach detaches
  out.join();
  if (!client_gone) (void)ch.finish(command_status(what, exit));  // the client may be gone
}

}  // namespace

Result<runtime::StreamOptions> stream_options_of(const http::Request& request) {
  runtime::StreamOptions o;
  o.stdin = flag(request, "input");
  o.stdout = flag(request, "output");
  o.stderr = flag(request, "error");
  o.tty = flag(request, "tty");
  if (o.tty) o.stderr = false;  // one terminal: stderr is merged into stdout
  if (!o.stdin && !o.stdout && !o.stderr && !o.tty)
    return error(Code::kBadRequest, "you must specify at least 1 of stdin, stdout, stderr");
  return o;
}

Transport transport_of(const http::Request& request) {
  if (is_websocket_request(request)) return Transport::kWebSocket;
  auto upgrade = request.header("upgrade");
  if (upgrade && iequals(*upgrade, "SPDY/3.1")) return Transport::kSpdy;
  return Transport::kNone;
}

std::string command_status(const CommandRequest& what, const Result<int>& exit) {
  nlohmann::ordered_json s = {{"metadata", nlohmann::json::object()}};
  if (exit.is_ok() && (*exit == 0 || what.attach)) {
    s["status"] = "Success";
    return s.dump();
  }
  s["status"] = "Failure";
  if (exit.is_ok()) {
    const std::string code = std::to_string(*exit);
    s["message"] = "command terminated with non-zero exit code: error executing command " +
                   go_list(what.command) + ", exit code " + code;
    s["reason"] = "NonZeroExitCode";
    s["details"] = {{"causes", {{{"reason", "ExitCode"}, {"message", code}}}}};
    return s.dump();
  }
  const std::string cause =
      (what.attach ? "error attaching to container: " : "error executing command in container: ") +
      exit.status().message();
  s["message"] = "Internal error occurred: " + cause;
  s["reason"] = "InternalError";
  s["details"] = {{"causes", {{{"message", cause}}}}};
  s["code"] = 500;
  return s.dump();
}

http::Response serve_remote_command(const http::Request& request, CommandRequest what,
                                    std::shared_ptr<runtime::StreamSession> session) {
  auto shared_what = std::make_shared<const CommandRequest>(std::move(what));
  switch (transport_of(request)) {
    case Transport::kWebSocket: {
      auto protocol = choose_subprotocol(request, {kV5, kV4});
      if (!protocol)
        return plain_text(400,
                          "unable to upgrade: none of the offered websocket subprotocols is "
                          "supported (supported: v5.channel.k8s.io, v4.channel.k8s.io)");
      auto answer = websocket_handshake(request, *protocol);
      if (!answer.is_ok()) return plain_text(400, answer.status().message());
      const bool v5 = *protocol == kV5;
      answer->upgrade = [session, shared_what, v5](http::Duplex& io) {
        auto ch = internal::websocket_channels(io, v5);
        pump(*ch, *session, *shared_what);
      };
      return std::move(*answer);
    }
    case Transport::kSpdy: {
      std::vector<std::string> offered = stream_protocols(request);
      if (std::find(offered.begin(), offered.end(), kV4) == offered.end())
        return plain_text(403, "unable to upgrade: unable to negotiate protocol: client supports " +
                                   go_list(offered) + ", server supports [" + kV4 + "]");
      http::Response r;
      r.status = 101;
      r.set_header("Connection", "Upgrade");
      r.set_header("Upgrade", "SPDY/3.1");
      r.set_header("X-Stream-Protocol-Version", kV4);
      r.upgrade = [session, shared_what](http::Duplex& io) {
        auto ch = internal::spdy_channels(io, shared_what->options);
        if (!ch.is_ok()) {
          log::for_role("kubelet")->warn("exec/attach over SPDY: {}", ch.status().message());
          return;  // the session is cancelled when its last owner lets go
        }
        pump(**ch, *session, *shared_what);
      };
      return r;
    }
    case Transport::kNone:
      break;
  }
  return plain_text(400,
                    "unable to upgrade: missing upgrade headers in request (websocket with "
                    "v5.channel.k8s.io, or SPDY/3.1)");
}

}  // namespace k3c::streaming
