// Tests of the HTTPS server against the real curl, with a throwaway certificate made by the
// openssl tool.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "core/percent_encoding.h"
#include "http/https_server.h"
#include "http/internal/stream_writers.h"
#include "push_stream.h"
#include "run_command.h"
#include "temp_dir.h"
#include "tls_client_duplex.h"

namespace k3c::http {
namespace {

using namespace std::chrono_literals;

struct TestCert {
  TempDir dir;
  std::string cert = dir.path() + "/tls.crt";
  std::string key = dir.path() + "/tls.key";
  TestCert() {
    auto r =
        run_command({"openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                     "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", cert, "-subj",
                     "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1", "-days", "1"});
    REQUIRE(r.exit_code == 0);
  }
  SSL_CTX* context() const {
    SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    REQUIRE(SSL_CTX_use_certificate_chain_file(ctx, cert.c_str()) == 1);
    REQUIRE(SSL_CTX_use_PrivateKey_file(ctx, key.c_str(), SSL_FILETYPE_PEM) == 1);
    return ctx;
  }
};

using testing::PushStream;

std::vector<std::string> curl(const TestCert& cert, uint16_t port, const std::string& path,
                              std::vector<std::string> extra = {}) {
  std::vector<std::string> argv = {"curl", "-sS", "--cacert", cert.cert, "-w", "\n%{http_code}"};
  for (auto& e : extra) argv.push_back(e);
  argv.push_back("https://127.0.0.1:" + std::to_string(port) + path);
  return argv;
}

// A server on 127.0.0.1 at a port the system picks.
ServerOptions loopback_options() {
  ServerOptions o;
  o.bind_address = "127.0.0.1";
  o.port = 0;
  return o;
}

// A plain TCP connection to the server on 127.0.0.1 that says nothing (no TLS handshake).
int connect_silent(uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  REQUIRE(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  return fd;
}

TEST_CASE("the server answers requests with decoded path and query") {
  TestCert cert;
  ServerOptions o = loopback_options();
  HttpsServer server(o, cert.context(), [](Request& r) {
    Response resp;
    resp.body = r.method + " " + r.path + " " +
                std::string(r.param("labelSelector").value_or("-")) + " " +
                std::to_string(r.body.size());
    resp.set_header("Content-Type", "text/plain");
    return resp;
  });
  REQUIRE(server.start().is_ok());
  auto r =
      run_command(curl(cert, server.port(), "/api/v1/pods?labelSelector=app%3Dweb%2Ctier+in+(a)"));
  REQUIRE(r.exit_code == 0);
  REQUIRE(r.out == "GET /api/v1/pods app=web,tier in (a) 0\n200");
  auto post =
      run_command(curl(cert, server.port(), "/x", {"-X", "POST", "--data-binary", "hello"}));
  REQUIRE(post.out == "POST /x - 5\n200");
  server.stop();
}

TEST_CASE("a HEAD answer has GET's headers and no body, and the connection stays usable") {
  TestCert cert;
  ServerOptions o = loopback_options();
  HttpsServer server(o, cert.context(), [](Request& r) {
    Response resp;
    resp.body = r.method + " " + r.path;
    resp.set_header("Content-Type", "text/plain");
    return resp;
  });
  REQUIRE(server.start().is_ok());
  // One curl, one connection: the HEAD, then a GET on the same kept-alive connection. A body
  // after the HEAD's headers would be read as the start of the GET's answer.
  const std::string url = "https://127.0.0.1:" + std::to_string(server.port()) + "/x";
  auto r =
      run_command({"curl", "-sS", "--cacert", cert.cert, "-I", "-w", "%{http_code}\n", url,
                   "--next", "--cacert", cert.cert, "-w", "\n%{http_code} %{num_connects}", url});
  REQUIRE(r.exit_code == 0);
  REQUIRE_THAT(r.out, Catch::Contains("content-length: 7") || Catch::Contains("Content-Length: 7"));
  REQUIRE_THAT(r.out, !Catch::Contains("HEAD /x"));
  REQUIRE_THAT(r.out, Catch::EndsWith("GET /x\n200 0"));
  server.stop();
}

TEST_CASE("a body over the limit gets 413 and the server lives on") {
  TestCert cert;
  TempDir dir;
  ServerOptions o = loopback_options();
  o.body_limit = 1000;
  HttpsServer server(o, cert.context(), [](Request&) { return Response{}; });
  REQUIRE(server.start().is_ok());
  std::string big = dir.path() + "/big";
  {
    FILE* f = fopen(big.c_str(), "w");
    std::string data(5000, 'x');
    fwrite(data.data(), 1, data.size(), f);
    fclose(f);
  }
  auto r = run_command(curl(cert, server.port(), "/x", {"-X", "POST", "--data-binary", "@" + big}));
  REQUIRE_THAT(r.out, Catch::EndsWith("413"));
  REQUIRE_THAT(r.out, Catch::Contains("RequestEntityTooLarge"));
  auto ok = run_command(curl(cert, server.port(), "/x"));
  REQUIRE_THAT(ok.out, Catch::EndsWith("200"));
}

// A started server that answers every request with `stream` as its body.
std::unique_ptr<HttpsServer> serve_stream(TestCert& cert, std::shared_ptr<PushStream> stream) {
  ServerOptions o = loopback_options();
  auto server = std::make_unique<HttpsServer>(o, cert.context(), [stream](Request&) {
    Response r;
    r.stream = stream;
    r.set_header("Content-Type", "application/json");
    return r;
  });
  REQUIRE(server->start().is_ok());
  return server;
}

TEST_CASE("a streamed body arrives chunk by chunk and ends") {
  TestCert cert;
  auto stream = std::make_shared<PushStream>();
  auto running = serve_stream(cert, stream);
  HttpsServer& server = *running;
  std::thread producer([&] {
    std::this_thread::sleep_for(100ms);
    stream->push("{\"a\":1}\n");
    std::this_thread::sleep_for(100ms);
    stream->push("{\"b\":2}\n", true);
  });
  auto r = run_command(curl(cert, server.port(), "/watch"));
  producer.join();
  REQUIRE(r.out == "{\"a\":1}\n{\"b\":2}\n\n200");
  REQUIRE(stream->cancelled);
}

// A streamed body's server: one PushStream per request, kept for the test.
struct StreamServer {
  explicit StreamServer(std::chrono::seconds write_timeout = std::chrono::seconds(60)) {
    ServerOptions o = loopback_options();
    o.write_timeout = write_timeout;
    server = std::make_unique<HttpsServer>(o, cert.context(), [this](Request&) {
      Response r;
      r.stream = std::make_shared<PushStream>();
      std::lock_guard lock(mu);
      streams.push_back(std::static_pointer_cast<PushStream>(r.stream));
      return r;
    });
  }
  // A client whose GET has its 200 answer; the stream's body follows.
  std::unique_ptr<testing::TlsClientDuplex> watch() {
    auto c = std::make_unique<testing::TlsClientDuplex>(server->port());
    REQUIRE(c->ok());
    REQUIRE_THAT(c->request("GET /watch HTTP/1.1\r\nHost: a\r\n\r\n"),
                 Catch::StartsWith("HTTP/1.1 200"));
    return c;
  }
  std::shared_ptr<PushStream> stream(size_t i) {
    std::lock_guard lock(mu);
    return i < streams.size() ? streams[i] : nullptr;
  }
  TestCert cert;
  std::mutex mu;
  std::vector<std::shared_ptr<PushStream>> streams;
  std::unique_ptr<HttpsServer> server;
};

template <typename F>
bool within(std::chrono::milliseconds limit, F done) {
  for (auto until = std::chrono::steady_clock::now() + limit;
       std::chrono::steady_clock::now() < until; std::this_thread::sleep_for(10ms)) {
    if (done()) return true;
  }
  return done();
}

TEST_CASE("a large poll is written as several chunks, in order") {
  TestCert cert;
  auto stream = std::make_shared<PushStream>();
  // Five pieces of 30 kB queued before the first poll, then a small one and the end.
  std::string expected;
  for (char c = 'a'; c < 'f'; ++c) {
    stream->push(std::string(30 << 10, c));
    expected += std::string(30 << 10, c);
  }
  auto running = serve_stream(cert, stream);
  HttpsServer& server = *running;
  std::thread producer([&] {
    std::this_thread::sleep_for(100ms);
    stream->push("end\n", true);
  });
  auto r = run_command(curl(cert, server.port(), "/watch"));
  producer.join();
  expected += "end\n\n200";
  CHECK(r.out.size() == expected.size());
  CHECK(r.out == expected);
}

TEST_CASE("a streamed body ends when its client goes away, and stop() ends the others") {
  StreamServer s;
  REQUIRE(s.server->start().is_ok());
  auto leaving_client = s.watch(), staying_client = s.watch();
  auto &leaving = *leaving_client, &staying = *staying_client;
  s.stream(0)->push("one\n");
  CHECK(testing::read_bytes(leaving, 9) == "4\r\none\n\r\n");
  leaving.close();
  // Noticed without anything more to write.
  CHECK(within(3s, [&] { return s.stream(0)->cancelled.load(); }));
  CHECK_FALSE(s.stream(1)->cancelled);
  s.stream(1)->push("two\n");
  CHECK(testing::read_bytes(staying, 9) == "4\r\ntwo\n\r\n");
  s.server->stop();
  CHECK(s.stream(1)->cancelled);
  CHECK(s.server->connections() == 0);
}

TEST_CASE("a stream whose client stops reading ends after the write timeout; others go on") {
  StreamServer s(1s);
  REQUIRE(s.server->start().is_ok());
  auto stalled = s.watch(), reading_client = s.watch();
  auto& reading = *reading_client;
  // Pieces of 64 kB until the stalled client's socket buffers are full and its stream ends
  // (bounded: 256 MB).
  auto piece = std::make_shared<const std::string>(64 << 10, 'x');
  for (int i = 0; i < 4096 && !s.stream(0)->cancelled; ++i) {
    s.stream(0)->push(*piece);
    if (i % 64 == 63) std::this_thread::sleep_for(5ms);
  }
  CHECK(within(5s, [&] { return s.stream(0)->cancelled.load(); }));
  s.stream(1)->push("live\n");
  CHECK(testing::read_bytes(reading, 10) == "5\r\nlive\n\r\n");
  CHECK_FALSE(s.stream(1)->cancelled);
}

TEST_CASE("stream writers refuse a stream while out of file descriptors, then start again") {
  internal::StreamWriters writers({1, 60s, 1s});
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  SSL* ssl = SSL_new(ctx);
  int pair[2];
  REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0);
  std::atomic<int> done{-1};
  auto body = std::make_shared<PushStream>();
  auto adopt = [&] {
    return writers.adopt(pair[0], ssl, body, [&](bool ended) { done = ended ? 1 : 0; });
  };
  {
    // Every descriptor taken (under a low limit): the writer thread cannot make its epoll set.
    rlimit was{};
    REQUIRE(getrlimit(RLIMIT_NOFILE, &was) == 0);
    rlimit low = was;
    low.rlim_cur = std::min<rlim_t>(was.rlim_cur, 256);
    REQUIRE(setrlimit(RLIMIT_NOFILE, &low) == 0);
    std::vector<int> held;
    for (int fd; (fd = dup(pair[1])) >= 0;) held.push_back(fd);
    CHECK_FALSE(adopt());
    for (int fd : held) close(fd);
    REQUIRE(setrlimit(RLIMIT_NOFILE, &was) == 0);
  }
  // Descriptors again: the thread is made anew and serves the stream. The connection has no
  // TLS session, so the first write fails and the stream ends, not ended by its body.
  REQUIRE(adopt());
  body->push("x\n");
  for (int i = 0; i < 300 && done == -1; ++i) std::this_thread::sleep_for(10ms);
  CHECK(done == 0);
  CHECK(body->cancelled);
  writers.stop();
  SSL_free(ssl);
  SSL_CTX_free(ctx);
  close(pair[0]);
  close(pair[1]);
}

TEST_CASE("once its stream ends, a TLS session writes nothing more to the socket") {
  TestCert cert;
  SSL_CTX* server_ctx = cert.context();
  SSL_CTX* client_ctx = SSL_CTX_new(TLS_client_method());
  int pair[2];
  REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0);
  SSL* server = SSL_new(server_ctx);
  SSL* client = SSL_new(client_ctx);
  SSL_set_fd(server, pair[0]);
  SSL_set_fd(client, pair[1]);
  std::thread accepting([&] { SSL_accept(server); });
  REQUIRE(SSL_connect(client) == 1);
  accepting.join();
  char buf[256];
  {
    internal::StreamWriters writers({1, 60s, 1s});
    auto body = std::make_shared<PushStream>();
    std::atomic<bool> done{false};
    REQUIRE(writers.adopt(pair[0], server, body, [&](bool) { done = true; }));
    body->push("one\n");
    int n = SSL_read(client, buf, sizeof buf);
    CHECK(std::string(buf, std::max(n, 0)) == "4\r\none\n\r\n");
    writers.stop();
    CHECK(done);
  }
  // What the server's owner does next (Asio's async_shutdown) must not reach the socket: by
  // then the descriptor may be another connection's.
  SSL_shutdown(server);
  CHECK(recv(pair[1], buf, sizeof buf, MSG_DONTWAIT) < 0);
  SSL_free(server);
  SSL_free(client);
  SSL_CTX_free(server_ctx);
  SSL_CTX_free(client_ctx);
  close(pair[0]);
  close(pair[1]);
}

TEST_CASE("a stalled client does not hold up others, and stop() ends open connections") {
  TestCert cert;
  ServerOptions o = loopback_options();
  o.handshake_timeout = 2s;
  HttpsServer server(o, cert.context(), [](Request&) { return Response{}; });
  REQUIRE(server.start().is_ok());
  // A client that connects and never says anything.
  int fd = connect_silent(server.port());
  auto r = run_command(curl(cert, server.port(), "/x"));
  REQUIRE_THAT(r.out, Catch::EndsWith("200"));
  // The stalled handshake times out and the connection is gone.
  std::this_thread::sleep_for(2500ms);
  char b;
  REQUIRE(recv(fd, &b, 1, 0) == 0);
  close(fd);
  server.stop();
  REQUIRE(server.connections() == 0);
}

TEST_CASE("past max_connections a new connection gets 429, and is served once others leave") {
  TestCert cert;
  ServerOptions o = loopback_options();
  o.max_connections = 2;
  HttpsServer server(o, cert.context(), [](Request&) { return Response{}; });
  REQUIRE(server.start().is_ok());
  // Two idle clients hold the two places (connected, saying nothing).
  std::vector<int> idle;
  for (int i = 0; i < 2; ++i) idle.push_back(connect_silent(server.port()));
  for (int i = 0; i < 100 && server.connections() < 2; ++i) std::this_thread::sleep_for(10ms);
  auto refused = run_command(curl(cert, server.port(), "/x", {"-i"}));
  CHECK_THAT(refused.out, Catch::Contains("Retry-After: 1"));
  CHECK_THAT(refused.out, Catch::Contains(R"("reason":"TooManyRequests","code":429})"));
  CHECK_THAT(refused.out, Catch::EndsWith("429"));
  for (int fd : idle) close(fd);
  for (int i = 0; i < 100 && server.connections() > 0; ++i) std::this_thread::sleep_for(10ms);
  CHECK_THAT(run_command(curl(cert, server.port(), "/x")).out, Catch::EndsWith("200"));
  server.stop();
}

TEST_CASE("a 101 answer hands the connection to the upgrade handler, without idle timeout") {
  TestCert cert;
  ServerOptions o = loopback_options();
  o.idle_timeout = 1s;  // a switched connection outlives it
  o.max_upgraded = 1;
  std::atomic<bool> handler_done{false};
  HttpsServer server(o, cert.context(), [&](Request& r) {
    Response resp;
    if (r.header("upgrade") != "echo") return resp;
    resp.status = 101;
    resp.set_header("Upgrade", "echo");
    resp.set_header("Connection", "Upgrade");
    resp.upgrade = [&](Duplex& d) {
      char buf[64];
      for (;;) {
        auto n = d.read_some(buf, sizeof buf, 5s);
        if (!n.is_ok() || *n == 0) break;
        std::string up(buf, *n);
        for (char& c : up) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        if (!d.write_all(up).is_ok()) break;
      }
      handler_done = true;
    };
    return resp;
  });
  REQUIRE(server.start().is_ok());
  testing::TlsClientDuplex client(server.port());
  REQUIRE(client.ok());
  // The first bytes ride along with the request: the server must keep what it read ahead.
  std::string head = client.request(
      "GET /x HTTP/1.1\r\nHost: a\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\nhello");
  REQUIRE_THAT(head, Catch::StartsWith("HTTP/1.1 101"));
  CHECK_THAT(head, Catch::Contains("Upgrade: echo"));
  CHECK(testing::read_bytes(client, 5) == "HELLO");
  // Past the idle timeout the tunnel still works.
  std::this_thread::sleep_for(1500ms);
  REQUIRE(client.write_all("again").is_ok());
  CHECK(testing::read_bytes(client, 5) == "AGAIN");

  // A second switched connection is over the limit of one.
  testing::TlsClientDuplex second(server.port());
  REQUIRE(second.ok());
  std::string refused =
      second.request("GET /x HTTP/1.1\r\nHost: a\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n");
  CHECK_THAT(refused, Catch::StartsWith("HTTP/1.1 503"));

  // stop() ends the tunnel: the handler's read fails and it returns.
  server.stop();
  CHECK(handler_done);
  CHECK(server.connections() == 0);
}

TEST_CASE("an in-memory pipe carries bytes both ways, bounded, and closes both ends") {
  auto [a, b] = make_pipe(4);
  std::thread writer([&a = a] { REQUIRE(a->write_all("0123456789").is_ok()); });
  CHECK(testing::read_bytes(*b, 10) == "0123456789");
  writer.join();
  char buf[3];
  CHECK(b->read_some(buf, sizeof buf, 10ms).status().code() == Code::kTimeout);
  a->close();
  auto eof = b->read_some(buf, sizeof buf, 1s);
  REQUIRE(eof.is_ok());
  CHECK(*eof == 0);
  CHECK(b->write_all("x").code() == Code::kServiceUnavailable);
}

TEST_CASE("a client that vanishes from a switched connection ends the handler and the connection") {
  TestCert cert;
  ServerOptions o = loopback_options();
  std::atomic<int> ended{0};
  std::atomic<bool> saw_end{false};
  HttpsServer server(o, cert.context(), [&](Request&) {
    Response resp;
    resp.status = 101;
    resp.set_header("Upgrade", "echo");
    resp.upgrade = [&](Duplex& d) {
      char buf[64];
      for (;;) {
        auto n = d.read_some(buf, sizeof buf, 200ms);
        if (n.is_ok() && *n > 0) continue;
        if (!n.is_ok() && n.status().code() == Code::kTimeout) continue;
        saw_end = true;  // EOF or a failed connection, not a hang
        break;
      }
      ++ended;
    };
    return resp;
  });
  REQUIRE(server.start().is_ok());
  {
    testing::TlsClientDuplex client(server.port());
    REQUIRE(client.ok());
    std::string head = client.request("GET / HTTP/1.1\r\nHost: a\r\nUpgrade: echo\r\n\r\n");
    REQUIRE_THAT(head, Catch::StartsWith("HTTP/1.1 101"));
    REQUIRE(client.write_all(std::string(100000, 'g')).is_ok());  // garbage, then gone
  }  // the socket closes without a TLS close_notify
  for (int i = 0; i < 100 && (ended == 0 || server.connections() > 0); ++i)
    std::this_thread::sleep_for(20ms);
  CHECK(ended == 1);
  CHECK(saw_end);
  CHECK(server.connections() == 0);
}

}  // namespace
}  // namespace k3c::http

namespace k3c::http {
namespace {

TEST_CASE("percent_encode keeps the unreserved bytes (and '/' in a path) and round-trips") {
  CHECK(k3c::percent_encode("sh -c 'exit 3'", false) == "sh%20-c%20%27exit%203%27");
  CHECK(k3c::percent_encode("/exec/ns/p/c", true) == "/exec/ns/p/c");
  CHECK(k3c::percent_encode("a/b", false) == "a%2Fb");
  CHECK(k3c::percent_encode("A-z_0.9~", false) == "A-z_0.9~");
  const std::string odd = "ä&=?#%+\n";
  CHECK(percent_decode(k3c::percent_encode(odd, false), false) == odd);
}

}  // namespace
}  // namespace k3c::http
