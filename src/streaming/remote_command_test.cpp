// The remote-command protocol end to end over in-memory pipes, with a real host process as
// the session: WebSocket v5 and v4, SPDY v4, a terminal with resize, exit codes in the
// final status, and clients that misbehave or vanish.
#include "streaming/remote_command.h"

#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "fakes/host_process_session.h"
#include "streaming/testing/protocol_clients.h"

namespace k3c::streaming {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using testing::client_frame;
using testing::FrameReader;

http::Request ws_request(const std::string& protocol, const std::string& query_flags) {
  http::Request r = testing::websocket_request(protocol);
  for (char c : query_flags) {
    const char* name = c == 'i' ? "input" : c == 'o' ? "output" : c == 'e' ? "error" : "tty";
    r.query.emplace_back(name, "1");
  }
  return r;
}

// Runs the server side of `request` over a pipe; the client end is returned.
struct Served {
  std::unique_ptr<http::Duplex> server, client;
  std::thread thread;
  std::atomic<bool> done{false};
  ~Served() {
    client->close();
    if (thread.joinable()) thread.join();
  }
};

std::unique_ptr<Served> serve(const http::Request& request, CommandRequest what,
                              std::shared_ptr<runtime::StreamSession> session, int expect = 101) {
  auto s = std::make_unique<Served>();
  auto [a, b] = http::make_pipe();
  s->server = std::move(a);
  s->client = std::move(b);
  http::Response r = serve_remote_command(request, std::move(what), std::move(session));
  REQUIRE(r.status == expect);
  if (expect != 101) return s;
  REQUIRE(r.upgrade);
  s->thread = std::thread([u = r.upgrade, d = s->server.get(), flag = &s->done] {
    u(*d);
    *flag = true;
  });
  return s;
}

// Collects channel messages until the close frame: channel -> bytes.
std::map<int, std::string> collect(FrameReader& reader) {
  std::map<int, std::string> out;
  while (auto m = reader.message(10s)) {
    if (m->empty()) continue;
    out[uint8_t((*m)[0])] += m->substr(1);
  }
  return out;
}

TEST_CASE("exec over v5.channel.k8s.io: stdin, stdout, stderr, the close signal, exit 3") {
  runtime::StreamOptions o{.stdin = true, .stdout = true, .stderr = true, .tty = false};
  std::vector<std::string> cmd = {"sh", "-c", "cat; echo oops >&2; exit 3"};
  auto session = std::make_shared<k3c::testing::HostProcessSession>(cmd, o);
  REQUIRE(session->started());
  auto s =
      serve(ws_request("v4.channel.k8s.io,v5.channel.k8s.io", "ioe"), {o, cmd, false}, session);
  REQUIRE(s->client->write_all(client_frame(0x2, std::string("\0hello ", 7))).is_ok());
  REQUIRE(s->client->write_all(client_frame(0x2, std::string("\0world", 6))).is_ok());
  REQUIRE(s->client->write_all(client_frame(0x9, "ping?")).is_ok());
  REQUIRE(s->client->write_all(client_frame(0x2, std::string("\xff\x00", 2))).is_ok());
  FrameReader reader(*s->client);
  auto got = collect(reader);
  CHECK(got[1] == "hello world");
  CHECK(got[2] == "oops\n");
  json status = json::parse(got[3]);
  CHECK(status["status"] == "Failure");
  CHECK(status["reason"] == "NonZeroExitCode");
  CHECK(status["message"] ==
        "command terminated with non-zero exit code: error executing command "
        "[sh -c cat; echo oops >&2; exit 3], exit code 3");
  CHECK(status["details"]["causes"] == json::parse(R"([{"reason":"ExitCode","message":"3"}])"));
}

TEST_CASE("exec over v4 without stdin ends with Success and needs no client input") {
  runtime::StreamOptions o{.stdin = false, .stdout = true, .stderr = true, .tty = false};
  std::vector<std::string> cmd = {"echo", "hi"};
  auto session = std::make_shared<k3c::testing::HostProcessSession>(cmd, o);
  auto s = serve(ws_request("v4.channel.k8s.io", "oe"), {o, cmd, false}, session);
  FrameReader reader(*s->client);
  auto got = collect(reader);
  CHECK(got[1] == "hi\n");
  CHECK(got[3] == R"({"metadata":{},"status":"Success"})");
}

TEST_CASE("a terminal takes resizes from channel 4 and merges stderr") {
  runtime::StreamOptions o{.stdin = true, .stdout = true, .stderr = false, .tty = true};
  std::vector<std::string> cmd = {"sh", "-c", "read x; stty size; echo e >&2"};
  auto session = std::make_shared<k3c::testing::HostProcessSession>(cmd, o);
  auto s = serve(ws_request("v5.channel.k8s.io", "ioet"), {o, cmd, false}, session);
  REQUIRE(s->client->write_all(client_frame(0x2, "\x04{\"Width\":100,\"Height\":30}\n")).is_ok());
  std::this_thread::sleep_for(100ms);
  REQUIRE(s->client->write_all(client_frame(0x2, std::string("\0go\n", 4))).is_ok());
  FrameReader reader(*s->client);
  auto got = collect(reader);
  CHECK_THAT(got[1], Catch::Contains("30 100"));
  CHECK_THAT(got[1], Catch::Contains("e\r\n"));
  CHECK(got.count(2) == 0);
  CHECK(session->sizes() == std::vector<std::pair<uint16_t, uint16_t>>{{100, 30}});
}

TEST_CASE("unknown channels are ignored; a text frame ends the session and kills the process") {
  runtime::StreamOptions o{.stdin = true, .stdout = true, .stderr = true, .tty = false};
  std::vector<std::string> cmd = {"sleep", "30"};
  auto session = std::make_shared<k3c::testing::HostProcessSession>(cmd, o);
  auto s = serve(ws_request("v5.channel.k8s.io", "ioe"), {o, cmd, false}, session);
  REQUIRE(s->client->write_all(client_frame(0x2, "\x09what")).is_ok());
  REQUIRE(s->client->write_all(client_frame(0x2, "")).is_ok());
  std::this_thread::sleep_for(300ms);
  CHECK_FALSE(s->done);
  REQUIRE(s->client->write_all(client_frame(0x1, "text")).is_ok());
  FrameReader reader(*s->client);
  auto close = reader.next();
  REQUIRE(close);
  CHECK(close->opcode == 0x8);
  for (int i = 0; i < 50 && !s->done; ++i) std::this_thread::sleep_for(100ms);
  CHECK(s->done);
  CHECK(session->cancelled());
}

TEST_CASE("a client that disappears mid-stream cancels the session and frees the thread") {
  runtime::StreamOptions o{.stdin = true, .stdout = true, .stderr = true, .tty = false};
  std::vector<std::string> cmd = {"sh", "-c", "while :; do echo tick; sleep 0.05; done"};
  auto session = std::make_shared<k3c::testing::HostProcessSession>(cmd, o);
  auto s = serve(ws_request("v5.channel.k8s.io", "ioe"), {o, cmd, false}, session);
  FrameReader reader(*s->client);
  REQUIRE(reader.message());
  s->client->close();
  for (int i = 0; i < 50 && !s->done; ++i) std::this_thread::sleep_for(100ms);
  CHECK(s->done);
  CHECK(session->cancelled());
}

TEST_CASE("exec over SPDY v4: the client's streams, stdin with FIN, output FINs, the status") {
  runtime::StreamOptions o{.stdin = true, .stdout = true, .stderr = true, .tty = false};
  std::vector<std::string> cmd = {"sh", "-c", "cat; echo oops >&2; exit 7"};
  auto session = std::make_shared<k3c::testing::HostProcessSession>(cmd, o);
  http::Request r;
  r.method = "POST";
  r.headers = {{"connection", "Upgrade"},
               {"upgrade", "SPDY/3.1"},
               {"x-stream-protocol-version", "v4.channel.k8s.io"},
               {"x-stream-protocol-version", "v3.channel.k8s.io"}};
  r.query = {{"input", "1"}, {"output", "1"}, {"error", "1"}};
  auto s = serve(r, {o, cmd, false}, session);
  testing::SpdyClient client(*s->client);
  uint32_t error_id = client.open({{"streamtype", "error"}});
  uint32_t stdin_id = client.open({{"streamtype", "stdin"}});
  uint32_t stdout_id = client.open({{"streamtype", "stdout"}});
  // Stdin may arrive before the last stream is open.
  client.data(stdin_id, "piped", true);
  uint32_t stderr_id = client.open({{"streamtype", "stderr"}});
  std::map<uint32_t, std::string> data;
  std::map<uint32_t, bool> fin;
  int replies = 0;
  while (!fin[error_id]) {
    auto f = client.next(10s);
    REQUIRE(f);
    if (f->type == spdy::FrameType::kSynReply) ++replies;
    if (f->type != spdy::FrameType::kData) continue;
    data[f->stream_id] += f->data;
    if (f->fin()) fin[f->stream_id] = true;
  }
  CHECK(replies == 4);
  CHECK(data[stdout_id] == "piped");
  CHECK(data[stderr_id] == "oops\n");
  CHECK(fin[stdout_id]);
  CHECK(fin[stderr_id]);
  json status = json::parse(data[error_id]);
  CHECK(status["reason"] == "NonZeroExitCode");
  CHECK(status["details"]["causes"][0]["message"] == "7");
}

TEST_CASE("requests the protocol cannot serve are answered in plain HTTP") {
  runtime::StreamOptions o;
  auto session =
      std::make_shared<k3c::testing::HostProcessSession>(std::vector<std::string>{"true"}, o);
  http::Request none;
  none.method = "POST";
  serve(none, {o, {"true"}, false}, session, 400);
  serve(ws_request("base64.channel.k8s.io", "o"), {o, {"true"}, false}, session, 400);
  http::Request old_spdy;
  old_spdy.method = "POST";
  old_spdy.headers = {{"upgrade", "SPDY/3.1"}, {"x-stream-protocol-version", "channel.k8s.io"}};
  serve(old_spdy, {o, {"true"}, false}, session, 403);
  http::Request nothing;
  CHECK(stream_options_of(nothing).status().message() ==
        "you must specify at least 1 of stdin, stdout, stderr");
}

TEST_CASE("the final status is upstream's metav1.Status JSON") {
  CommandRequest exec{{}, {"sh", "-c", "exit 3"}, false};
  CHECK(command_status(exec, 0) == R"({"metadata":{},"status":"Success"})");
  CHECK(command_status(exec, 3) ==
        R"({"metadata":{},"status":"Failure","message":"command terminated with non-zero exit )"
        R"(code: error executing command [sh -c exit 3], exit code 3","reason":"NonZeroExitCode",)"
        R"("details":{"causes":[{"reason":"ExitCode","message":"3"}]}})");
  CommandRequest attach{{}, {}, true};
  CHECK(command_status(attach, 1) == R"({"metadata":{},"status":"Success"})");
  CHECK(command_status(exec, Result<int>(error(Code::kInternal, "boom"))) ==
        R"({"metadata":{},"status":"Failure","message":"Internal error occurred: error executing )"
        R"(command in container: boom","reason":"InternalError","details":{"causes":[{"message":)"
        R"("error executing command in container: boom"}]},"code":500})");
}

}  // namespace
}  // namespace k3c::streaming
