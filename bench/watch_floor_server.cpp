// k3c_watch_floor_server: the floor of watch delivery, the reference the watch phase of
// k3c_apiserver_bench runs next to k3c. It does the least any HTTPS watch server must do per
// event and nothing else: the same TLS set-up as k3c (pki::make_server_context over the
// certificates of the k3c server under benchmark), the same number of I/O threads as k3c's
// HTTPS server, a strand per connection, and per event one serialization shared by every
// watcher and one TLS write per watcher. No store, no cache, no JSON parsing, no
// authentication: a POST is answered 201 with its body, and `{"type":"ADDED","object":<body>}`
// goes to every open watch as one HTTP chunk; any other GET is a watch when its target holds
// `watch=true`, else an empty list at resourceVersion 1.
//
// Usage: k3c_watch_floor_server TLS_DIR PORT_FILE (it listens on a free loopback port and
// writes it to PORT_FILE; SIGTERM stops it). Not a test and not part of k3c.
#include <signal.h>

// clang-format off
// Before Asio: Boost 1.74's awaitable.hpp uses std::exchange without including it.
#include <utility>
// clang-format on

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <charconv>
#include <cstdio>
#include <deque>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "pki/pki.h"

namespace {

namespace net = boost::asio;
using tcp = net::ip::tcp;
using TlsStream = net::ssl::stream<tcp::socket>;
constexpr int kIoThreads = 2;           // as http::ServerOptions::io_threads in k3c
constexpr size_t kHeaderLimit = 16384;  // a request's head
constexpr size_t kBodyLimit = 1 << 20;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// One open watch: its stream (shared with its connection's coroutine, so that a write in
// flight keeps it alive) and the chunks queued for it. Everything here runs on the
// connection's strand.
struct Watcher {
  explicit Watcher(std::shared_ptr<TlsStream> s) : stream(std::move(s)) {}
  std::shared_ptr<TlsStream> stream;
  std::deque<std::shared_ptr<const std::string>> queue;
  bool writing = false;
  bool closed = false;

  void push(std::shared_ptr<const std::string> chunk, const std::shared_ptr<Watcher>& self) {
    if (closed) return;
    queue.push_back(std::move(chunk));
    if (!writing) write_next(self);
  }
  // Writes everything queued in one gather write.
  void write_next(const std::shared_ptr<Watcher>& self) {
    if (queue.empty() || closed) {
      writing = false;
      return;
    }
    writing = true;
    auto batch = std::make_shared<std::vector<std::shared_ptr<const std::string>>>(queue.begin(),
                                                                                   queue.end());
    queue.clear();
    std::vector<net::const_buffer> buffers;
    for (const auto& c : *batch) buffers.push_back(net::buffer(*c));
    net::async_write(*stream, buffers, [self, batch](boost::system::error_code ec, size_t) {
      if (ec) {
        self->closed = true;
        return;
      }
      self->write_next(self);
    });
  }
};

class FloorServer {
 public:
  FloorServer(net::io_context& io, net::ssl::context& tls) : io_(io), tls_(tls), acceptor_(io) {}

  uint16_t listen() {
    tcp::endpoint at(net::ip::make_address("127.0.0.1"), 0);
    acceptor_.open(at.protocol());
    acceptor_.set_option(net::socket_base::reuse_address(true));
    acceptor_.bind(at);
    acceptor_.listen(4096);
    net::co_spawn(io_, accept_loop(), net::detached);
    return acceptor_.local_endpoint().port();
  }

 private:
  net::awaitable<void> accept_loop() {
    for (;;) {
      boost::system::error_code ec;
      tcp::socket socket = co_await acceptor_.async_accept(
          net::make_strand(io_), net::redirect_error(net::use_awaitable, ec));
      if (ec) co_return;
      socket.set_option(tcp::no_delay(true), ec);
      auto executor = socket.get_executor();
      net::co_spawn(executor, session(std::move(socket)), net::detached);
    }
  }

  // Serves one connection's requests in order until it closes.
  net::awaitable<void> session(tcp::socket socket) {
    auto shared = std::make_shared<TlsStream>(std::move(socket), tls_);
    TlsStream& stream = *shared;
    boost::system::error_code ec;
    co_await stream.async_handshake(net::ssl::stream_base::server,
                                    net::redirect_error(net::use_awaitable, ec));
    if (ec) co_return;
    std::string buffer;
    for (;;) {
      const size_t n =
          co_await net::async_read_until(stream, net::dynamic_buffer(buffer, kHeaderLimit),
                                         "\r\n\r\n", net::redirect_error(net::use_awaitable, ec));
      if (ec) co_return;
      const std::string head = buffer.substr(0, n);
      buffer.erase(0, n);
      const size_t length = content_length(head);
      if (length > kBodyLimit) co_return;
      if (buffer.size() < length) {
        co_await net::async_read(stream, net::dynamic_buffer(buffer),
                                 net::transfer_exactly(length - buffer.size()),
                                 net::redirect_error(net::use_awaitable, ec));
        if (ec) co_return;
      }
      std::string body = buffer.substr(0, length);
      buffer.erase(0, length);
      if (head.rfind("POST ", 0) == 0) {
        if (!co_await answer(stream, "201 Created", body)) co_return;
        fan_out(body);
      } else if (head.substr(0, head.find("\r\n")).find("watch=true") != std::string::npos) {
        co_await watch(shared);
        co_return;
      } else {
        const std::string list =
            R"({"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"1"},)"
            R"("items":[]})";
        if (!co_await answer(stream, "200 OK", list)) co_return;
      }
    }
  }

  static size_t content_length(const std::string& head) {
    size_t at = head.find("\r\nContent-Length:");
    if (at == std::string::npos) at = head.find("\r\ncontent-length:");
    if (at == std::string::npos) return 0;
    at += 17;
    while (at < head.size() && head[at] == ' ') ++at;
    size_t v = 0;
    std::from_chars(head.data() + at, head.data() + head.size(), v);
    return v;
  }

  static net::awaitable<bool> answer(TlsStream& stream, const char* status,
                                     const std::string& body) {
    std::string out =
        std::string("HTTP/1.1 ") + status +
        "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
        "\r\n\r\n" + body;
    boost::system::error_code ec;
    co_await net::async_write(stream, net::buffer(out),
                              net::redirect_error(net::use_awaitable, ec));
    co_return !ec;
  }

  // Registers the watch, then waits for the client to close it (the writes happen through
  // fan_out on this connection's strand meanwhile).
  net::awaitable<void> watch(std::shared_ptr<TlsStream> shared) {
    TlsStream& stream = *shared;
    const std::string head =
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
    boost::system::error_code ec;
    co_await net::async_write(stream, net::buffer(head),
                              net::redirect_error(net::use_awaitable, ec));
    if (ec) co_return;
    auto watcher = std::make_shared<Watcher>(shared);
    {
      std::lock_guard lock(mu_);
      watchers_.push_back(watcher);
    }
    char sink[256];
    for (;;) {
      co_await stream.async_read_some(net::buffer(sink),
                                      net::redirect_error(net::use_awaitable, ec));
      if (ec) break;
    }
    watcher->closed = true;
    std::lock_guard lock(mu_);
    std::erase(watchers_, watcher);
  }

  // One chunk for every watcher: serialized once, queued on each watcher's strand.
  void fan_out(const std::string& object) {
    std::string event = R"({"type":"ADDED","object":)" + object + "}\n";
    char size[32];
    std::snprintf(size, sizeof size, "%zx\r\n", event.size());
    auto chunk = std::make_shared<const std::string>(size + event + "\r\n");
    std::vector<std::shared_ptr<Watcher>> targets;
    {
      std::lock_guard lock(mu_);
      targets = watchers_;
    }
    for (auto& w : targets) {
      net::post(w->stream->get_executor(), [w, chunk] { w->push(chunk, w); });
    }
  }

  net::io_context& io_;
  net::ssl::context& tls_;
  tcp::acceptor acceptor_;
  std::mutex mu_;
  std::vector<std::shared_ptr<Watcher>> watchers_;  // guarded by mu_
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s TLS_DIR PORT_FILE\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1];
  k3c::pki::ServerPki pki;
  pki.serving.cert_pem = read_file(dir + "/serving-kube-apiserver.crt");
  pki.serving.key_pem = read_file(dir + "/serving-kube-apiserver.key");
  pki.client_ca.cert_pem = read_file(dir + "/client-ca.crt");
  pki.server_ca.cert_pem = read_file(dir + "/server-ca.crt");
  auto ctx = k3c::pki::make_server_context(pki);
  if (!ctx.is_ok()) {
    std::fprintf(stderr, "TLS context: %s\n", ctx.status().to_string().c_str());
    return 1;
  }
  // Asio's context takes ownership of the OpenSSL one.
  net::ssl::context tls(ctx.value().release());
  net::io_context io(kIoThreads);
  FloorServer server(io, tls);
  const uint16_t port = server.listen();
  std::ofstream(argv[2]) << port << "\n";
  net::signal_set signals(io, SIGTERM, SIGINT);
  signals.async_wait([&](auto, int) { io.stop(); });
  std::vector<std::thread> threads;
  for (int i = 0; i < kIoThreads; ++i) threads.emplace_back([&] { io.run(); });
  for (auto& t : threads) t.join();
  return 0;
}
