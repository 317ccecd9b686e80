// The HTTPS server (see https_server.h). This is the one translation unit of the http
// module that instantiates Asio/Beast templates; keep it that way for build time.
#include "http/https_server.h"

#include <array>
#include <atomic>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <system_error>
#include <thread>
#include <unordered_map>

#include "core/elastic_pool.h"
#include "core/log.h"
#include "core/thread_set.h"
#include "http/internal/stream_writers.h"

namespace k3c::http {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;
using tcp = net::ip::tcp;
using TlsStream = beast::ssl_stream<beast::tcp_stream>;
using namespace std::chrono_literals;

// How often a waiting stream is polled even without a wake-up, so that a producer's own
// deadline (a watch's timeoutSeconds) is honoured without a timer of its own.
constexpr std::chrono::steady_clock::duration kStreamTick = 1s;

const char* kTooManyBody =
    R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
    R"("message":"too many connections","reason":"TooManyRequests","code":429})";
const char* kBadRequestBody =
    R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
    R"("message":"malformed HTTP request","reason":"BadRequest","code":400})";

// One accepted connection. Lives as long as its coroutine (and the stop() bookkeeping).
struct Conn {
  Conn(tcp::socket socket, net::ssl::context& ssl) : stream(std::move(socket), ssl) {}
  TlsStream stream;
};

// A coroutine waiting for another thread to finish with its connection (the stream writers,
// a switched protocol's thread): the completion handler of its wait, kept until a post onto
// the connection's strand resumes it in place.
class Parked {
 public:
  template <class Handler>
  void park(Handler&& handler) {
    parked_ = std::make_unique<Model<std::decay_t<Handler>>>(std::forward<Handler>(handler));
  }
  // Resumes the waiting coroutine, if any; it runs until its next suspension.
  void resume() {
    if (auto p = std::move(parked_)) p->invoke();
  }

 private:
  struct Base {
    virtual ~Base() = default;
    virtual void invoke() = 0;
  };
  template <class Handler>
  struct Model final : Base {
    explicit Model(Handler&& h) : handler(std::move(h)) {}
    void invoke() override { std::move(handler)(); }
    Handler handler;
  };
  std::unique_ptr<Base> parked_;
};

// What such a coroutine waits on; touched only on the connection's strand.
struct StreamWait {
  Parked waiter;
  bool done = false;
};

// Suspends the calling coroutine until wait.waiter is resumed.
net::awaitable<void> park(StreamWait& wait) {
  return net::async_initiate<const net::use_awaitable_t<>&, void()>(
      [&wait](auto handler) { wait.waiter.park(std::move(handler)); }, net::use_awaitable);
}

std::string status_json(int code, const std::string& reason, const std::string& message) {
  return R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":")" +
         message + R"(","reason":")" + reason + R"(","code":)" + std::to_string(code) + "}";
}

// The switched connections of a server, so that stop() can end them and so that their
// threads never post to an io_context that is gone: every post goes through post().
struct Upgrades {
  std::mutex mu;  // guards all below
  std::condition_variable cv;
  size_t active = 0;
  bool gone = false;  // the io_context is stopping: posts are dropped
  std::vector<std::weak_ptr<Duplex>> live;

  // Runs `fn` on `ex` unless the server is gone; false when dropped.
  template <class Fn>
  bool post(const net::any_io_executor& ex, Fn&& fn) {
    std::lock_guard lock(mu);
    if (gone) return false;
    net::post(ex, std::forward<Fn>(fn));
    return true;
  }
};

// The Duplex of a switched connection. The handler's thread blocks on a condition variable
// while the strand runs the TLS reads and writes. One read is kept outstanding while the
// inbox has room, so a read_some() that times out cancels nothing (cancelling a TLS read
// would leave the stream unusable); the next call finds what arrived meanwhile.
class UpgradedConn final : public Duplex, public std::enable_shared_from_this<UpgradedConn> {
 public:
  static constexpr size_t kInboxLimit = 256 << 10;

  UpgradedConn(std::shared_ptr<Conn> conn, std::shared_ptr<Upgrades> upgrades,
               std::chrono::seconds write_timeout)
      : conn_(std::move(conn)),
        ex_(conn_->stream.get_executor()),
        upgrades_(std::move(upgrades)),
        write_timeout_(write_timeout) {}

  // Bytes the HTTP parser read past the request (sent before the 101 arrived).
  void preload(std::string bytes) { inbox_ = std::move(bytes); }

  Result<size_t> read_some(char* buffer, size_t max, std::chrono::milliseconds timeout) override {
    std::unique_lock lock(mu_);
    start_read_locked();
    cv_.wait_for(lock, timeout, [&] { return !inbox_.empty() || eof_ || closed_; });
    if (closed_) return error(Code::kServiceUnavailable, "the connection is closed");
    if (!inbox_.empty()) {
      size_t n = std::min(max, inbox_.size());
      std::memcpy(buffer, inbox_.data(), n);
      inbox_.erase(0, n);
      start_read_locked();
      return n;
    }
    if (eof_) {
      if (failed_) return error(Code::kServiceUnavailable, "the connection failed");
      return size_t{0};
    }
    return error(Code::kTimeout, "no data within the deadline");
  }

  Status write_all(std::string_view bytes) override {
    std::lock_guard one_writer(write_mu_);
    auto data = std::make_shared<std::string>(bytes);
    std::unique_lock lock(mu_);
    if (closed_) return error(Code::kServiceUnavailable, "the connection is closed");
    write_done_ = false;
    auto self = shared_from_this();
    bool posted = upgrades_->post(ex_, [self, data] {
      net::async_write(self->conn_->stream, net::buffer(*data),
                       [self, data](beast::error_code ec, size_t) {
                         std::lock_guard l(self->mu_);
                         self->write_done_ = true;
                         self->write_failed_ = static_cast<bool>(ec);
                         self->cv_.notify_all();
                       });
    });
    if (!posted) return error(Code::kServiceUnavailable, "the server is stopping");
    if (!cv_.wait_for(lock, write_timeout_, [&] { return write_done_ || closed_; })) {
      lock.unlock();
      close();
      return error(Code::kTimeout,
                   "the peer did not read for " + std::to_string(write_timeout_.count()) + " s");
    }
    if (closed_ && !write_done_)
      return error(Code::kServiceUnavailable, "the connection is closed");
    if (write_failed_) return error(Code::kServiceUnavailable, "writing to the connection failed");
    return Status::ok();
  }

  void close() override {
    {
      std::lock_guard lock(mu_);
      if (closed_) return;
      closed_ = true;
      cv_.notify_all();
    }
    // The socket closes under the strand; an outstanding read or write ends with an error.
    auto conn = conn_;
    (void)upgrades_->post(ex_, [conn] {  // dropped when stopping: stop() closes every socket
      beast::error_code ec;
      auto& socket = beast::get_lowest_layer(conn->stream).socket();
      socket.shutdown(tcp::socket::shutdown_both, ec);
      socket.close(ec);
    });
  }

 private:
  void start_read_locked() {
    if (reading_ || eof_ || closed_ || inbox_.size() >= kInboxLimit) return;
    reading_ = true;
    auto self = shared_from_this();
    bool posted = upgrades_->post(ex_, [self] {
      self->conn_->stream.async_read_some(
          net::buffer(self->chunk_), [self](beast::error_code ec, size_t n) {
            std::lock_guard l(self->mu_);
            self->reading_ = false;
            if (n > 0) self->inbox_.append(self->chunk_.data(), n);
            if (ec) {
              self->eof_ = true;
              // A peer that closes TCP without TLS close_notify ends the stream as well.
              self->failed_ = ec != net::error::eof && ec != net::ssl::error::stream_truncated;
            }
            self->start_read_locked();
            self->cv_.notify_all();
          });
    });
    if (!posted) {
      reading_ = false;
      eof_ = failed_ = true;
    }
  }

  std::shared_ptr<Conn> conn_;
  net::any_io_executor ex_;
  std::shared_ptr<Upgrades> upgrades_;
  const std::chrono::seconds write_timeout_;
  std::array<char, 16 << 10> chunk_;  // the outstanding read's buffer (strand only)
  std::mutex write_mu_;               // one write_all() at a time
  std::mutex mu_;                     // guards the fields below
  std::condition_variable cv_;
  std::string inbox_;
  bool reading_ = false, eof_ = false, failed_ = false, closed_ = false;
  bool write_done_ = false, write_failed_ = false;
};

}  // namespace

struct HttpsServer::Impl {
  Impl(ServerOptions o, SSL_CTX* tls, Handler h)
      : options(std::move(o)),
        ssl(tls),
        handler(std::move(h)),
        workers("https-handler", static_cast<size_t>(std::max(1, options.worker_threads))),
        acceptor(ioc),
        writers({std::max(1, options.io_threads), options.write_timeout,
                 std::clamp<std::chrono::steady_clock::duration>(options.write_timeout / 4, 1ms,
                                                                 kStreamTick)}),
        log(log::for_role("http")) {}

  ServerOptions options;
  net::io_context ioc;
  net::ssl::context ssl;
  Handler handler;
  // The handlers run here, off the network threads; threads exist only while requests do.
  ElasticPool workers;
  tcp::acceptor acceptor;
  // Streaming bodies are written here once their headers are out (stream_writers.h).
  internal::StreamWriters writers;
  std::vector<std::thread> threads;
  std::shared_ptr<spdlog::logger> log;
  std::atomic<size_t> open_connections{0};
  std::atomic<bool> stopping{false};
  std::mutex conns_mu;  // guards conns
  std::unordered_map<Conn*, std::weak_ptr<Conn>> conns;
  std::shared_ptr<Upgrades> upgrades = std::make_shared<Upgrades>();

  net::awaitable<void> accept_loop();
  net::awaitable<void> session(std::shared_ptr<Conn> conn);
  net::awaitable<bool> serve_one(std::shared_ptr<Conn> owner, beast::flat_buffer& buffer,
                                 const std::optional<PeerIdentity>& peer,
                                 const std::string& remote);
  // `head_only`: the answer to a HEAD request, the headers GET would get (Content-Length of
  // the body included) and no body (RFC 9110 9.3.2).
  net::awaitable<void> write_simple(Conn& conn, int status, std::string body, bool keep_alive,
                                    unsigned version,
                                    const std::vector<std::pair<std::string, std::string>>& headers,
                                    bool head_only = false);
  net::awaitable<void> write_stream(std::shared_ptr<Conn> conn, Response& resp, unsigned version);
  net::awaitable<void> switch_protocols(std::shared_ptr<Conn> conn, beast::flat_buffer& buffer,
                                        Response& resp, unsigned version);
  Response call_handler(Request& req);
  std::optional<Response> call_fast_handler(Request& req);
  std::string too_large_body() const {
    return status_json(413, "RequestEntityTooLarge",
                       "Request entity too large: limit is " + std::to_string(options.body_limit));
  }
};

HttpsServer::HttpsServer(ServerOptions options, SSL_CTX* tls, Handler handler)
    : impl_(std::make_unique<Impl>(std::move(options), tls, std::move(handler))) {}

HttpsServer::~HttpsServer() { stop(); }

uint16_t HttpsServer::port() const {
  beast::error_code ec;
  auto ep = impl_->acceptor.local_endpoint(ec);
  return ec ? 0 : ep.port();
}

size_t HttpsServer::connections() const { return impl_->open_connections.load(); }

Status HttpsServer::start() {
  auto& im = *impl_;
  beast::error_code ec;
  auto address = net::ip::make_address(im.options.bind_address, ec);
  if (ec) return error(Code::kInvalid, "bad bind address " + im.options.bind_address);
  tcp::endpoint ep(address, im.options.port);
  im.acceptor.open(ep.protocol(), ec);
  if (!ec) im.acceptor.set_option(net::socket_base::reuse_address(true), ec);
  if (!ec) im.acceptor.bind(ep, ec);
  if (!ec) im.acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    return error(Code::kInternal, "cannot listen on " + im.options.bind_address + ":" +
                                      std::to_string(im.options.port) + ": " + ec.message());
  }
  net::co_spawn(im.ioc, im.accept_loop(), net::detached);
  for (int i = 0; i < std::max(1, im.options.io_threads); ++i) {
    im.threads.emplace_back([&im] {
      name_this_thread("https-io");
      im.ioc.run();
    });
  }
  return Status::ok();
}

void HttpsServer::stop() {
  auto& im = *impl_;
  if (im.stopping.exchange(true)) return;
  // First: the writers own their streams' sockets until they let go of them.
  im.writers.stop();
  net::post(im.ioc, [&im] {
    beast::error_code ec;
    im.acceptor.close(ec);
  });
  std::vector<std::shared_ptr<Conn>> live;
  {
    std::lock_guard lock(im.conns_mu);
    for (auto& [raw, weak] : im.conns) {
      if (auto c = weak.lock()) live.push_back(std::move(c));
    }
  }
  // Streamed bodies were ended by writers.stop() above (or are refused by it from now on).
  for (auto& c : live) {
    net::post(c->stream.get_executor(), [c] {
      beast::error_code ec;
      beast::get_lowest_layer(c->stream).socket().close(ec);
    });
  }
  // Switched connections: their threads see the close and return (the protocols poll their
  // reads with short deadlines); wait a little for them before the loop stops.
  {
    std::vector<std::shared_ptr<Duplex>> upgraded;
    {
      std::lock_guard lock(im.upgrades->mu);
      for (auto& weak : im.upgrades->live)
        if (auto d = weak.lock()) upgraded.push_back(std::move(d));
    }
    for (auto& d : upgraded) d->close();
    std::unique_lock lock(im.upgrades->mu);
    im.upgrades->cv.wait_for(lock, 5s, [&] { return im.upgrades->active == 0; });
  }
  // Give the coroutines a moment to unwind, then stop the loop for good.
  for (int i = 0; i < 100 && im.open_connections.load() > 0; ++i) std::this_thread::sleep_for(10ms);
  {
    std::lock_guard lock(im.upgrades->mu);
    im.upgrades->gone = true;  // a straggling protocol thread posts nothing from now on
  }
  im.ioc.stop();
  for (auto& t : im.threads) {
    if (t.joinable()) t.join();
  }
  im.workers.stop();
}

net::awaitable<void> HttpsServer::Impl::accept_loop() {
  while (!stopping) {
    beast::error_code ec;
    tcp::socket socket = co_await acceptor.async_accept(
        net::make_strand(ioc), net::redirect_error(net::use_awaitable, ec));
    if (ec) {
      if (!acceptor.is_open()) co_return;
      continue;  // a failed accept (fd limit, aborted handshake) does not end the server
    }
    // As Go's net/http does for every TCP connection (kube-apiserver's too): a response or a
    // watch event leaves at once, not after the peer's ACK of the previous segment.
    socket.set_option(tcp::no_delay(true), ec);
    auto conn = std::make_shared<Conn>(std::move(socket), ssl);
    net::co_spawn(conn->stream.get_executor(), session(conn), net::detached);
  }
}

net::awaitable<void> HttpsServer::Impl::session(std::shared_ptr<Conn> conn) {
  ++open_connections;
  {
    std::lock_guard lock(conns_mu);
    conns[conn.get()] = conn;
  }
  struct Untrack {
    Impl* im;
    Conn* c;
    ~Untrack() {
      std::lock_guard lock(im->conns_mu);
      im->conns.erase(c);
      --im->open_connections;
    }
  } untrack{this, conn.get()};

  beast::error_code ec;
  auto& lowest = beast::get_lowest_layer(conn->stream);
  std::string remote;
  auto ep = lowest.socket().remote_endpoint(ec);
  if (!ec) remote = ep.address().to_string() + ":" + std::to_string(ep.port());
  lowest.expires_after(options.handshake_timeout);
  co_await conn->stream.async_handshake(net::ssl::stream_base::server,
                                        net::redirect_error(net::use_awaitable, ec));
  if (ec) co_return;
  std::optional<PeerIdentity> peer;
  if (options.identify_peer) peer = options.identify_peer(conn->stream.native_handle());

  beast::flat_buffer buffer;
  if (open_connections.load() > options.max_connections) {
    // (Named, not braced in the co_await: GCC 12 miscompiles braced string pairs there.)
    std::vector<std::pair<std::string, std::string>> retry{{"Retry-After", "1"}};
    co_await write_simple(*conn, 429, kTooManyBody, false, 11, retry);
  } else {
    while (!stopping && co_await serve_one(conn, buffer, peer, remote)) {
    }
  }
  lowest.expires_after(2s);
  co_await conn->stream.async_shutdown(net::redirect_error(net::use_awaitable, ec));
}

// Reads and answers one request. Returns true when the connection should stay open.
net::awaitable<bool> HttpsServer::Impl::serve_one(std::shared_ptr<Conn> owner,
                                                  beast::flat_buffer& buffer,
                                                  const std::optional<PeerIdentity>& peer,
                                                  const std::string& remote) {
  Conn& conn = *owner;
  beast::error_code ec;
  auto& lowest = beast::get_lowest_layer(conn.stream);
  bhttp::request_parser<bhttp::string_body> parser;
  parser.header_limit(static_cast<uint32_t>(options.header_limit));
  parser.body_limit(options.body_limit);
  lowest.expires_after(options.idle_timeout);
  co_await bhttp::async_read_header(conn.stream, buffer, parser,
                                    net::redirect_error(net::use_awaitable, ec));
  if (ec == bhttp::error::body_limit) {  // a Content-Length over the limit shows here
    co_await write_simple(conn, 413, too_large_body(), false, 11, {});
    co_return false;
  }
  if (ec) {
    if (ec.category() == bhttp::make_error_code(bhttp::error::end_of_stream).category() &&
        ec != bhttp::error::end_of_stream) {
      co_await write_simple(conn, 400, kBadRequestBody, false, 11, {});
    }
    co_return false;
  }
  lowest.expires_after(options.request_timeout);
  if (!parser.is_done()) {
    co_await bhttp::async_read(conn.stream, buffer, parser,
                               net::redirect_error(net::use_awaitable, ec));
  }
  if (ec == bhttp::error::body_limit) {
    co_await write_simple(conn, 413, too_large_body(), false, 11, {});
    co_return false;
  }
  if (ec) co_return false;

  auto msg = parser.release();
  const unsigned version = msg.version();
  const bool keep_alive = msg.keep_alive();
  Request req;
  req.method = std::string(msg.method_string());
  req.target = std::string(msg.target());
  req.peer = peer;
  req.remote_address = remote;
  for (const auto& field : msg) {
    std::string name(field.name_string());
    for (auto& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    req.headers.emplace_back(std::move(name), std::string(field.value()));
  }
  req.body = std::move(msg.body());
  auto target = parse_target(req.target);
  if (!target) {
    std::vector<std::pair<std::string, std::string>> json{{"Content-Type", "application/json"}};
    co_await write_simple(conn, 400,
                          status_json(400, "BadRequest", "malformed escape in the request path"),
                          keep_alive, version, json);
    co_return keep_alive;
  }
  req.path = std::move(target->path);
  req.query = std::move(target->query);

  // Other handlers may block: run them on the worker pool and come back to this strand.
  // (An if, not a conditional expression: GCC 12 miscompiles co_await inside ?:.)
  std::optional<Response> fast = call_fast_handler(req);
  Response resp;
  if (fast) {
    resp = std::move(*fast);
  } else {
    // The handler runs on the pool; its answer resumes this coroutine on its own executor.
    resp = co_await net::async_initiate<decltype(net::use_awaitable), void(Response)>(
        [this, &req](auto resume) {
          auto shared = std::make_shared<decltype(resume)>(std::move(resume));
          auto answer_with = [shared](Response answer) {
            auto executor = net::get_associated_executor(*shared);
            net::post(executor, [shared, answer = std::move(answer)]() mutable {
              (*shared)(std::move(answer));
            });
          };
          if (!workers.submit([this, &req, answer_with] { answer_with(call_handler(req)); })) {
            // A guard: stop() stops the pool only after joining the loop's threads, so no
            // request should get here; if one did, it gets an answer, not a hang.
            Response stopping;
            stopping.status = 503;
            stopping.body = status_json(503, "ServiceUnavailable", "the server is shutting down");
            answer_with(std::move(stopping));
          }
        },
        net::use_awaitable);
  }

  if (resp.upgrade && resp.status == 101) {
    co_await switch_protocols(owner, buffer, resp, version);
    co_return false;
  }
  if (resp.stream) {
    co_await write_stream(owner, resp, version);
    co_return false;  // a streamed body ends the connection (see write_stream)
  }
  co_await write_simple(conn, resp.status, std::move(resp.body), keep_alive, version, resp.headers,
                        req.method == "HEAD");
  co_return keep_alive;
}

Response HttpsServer::Impl::call_handler(Request& req) {
  try {
    return handler(req);
  } catch (const std::exception& e) {
    // A handler must not throw; if one does, the client gets a 500 and the server lives on.
    log->error("handler threw on {} {}: {}", req.method, req.target, e.what());
    Response r;
    r.status = 500;
    r.body = status_json(500, "InternalError", "internal error");
    r.set_header("Content-Type", "application/json");
    return r;
  }
}

std::optional<Response> HttpsServer::Impl::call_fast_handler(Request& req) {
  if (!options.fast_handler) return std::nullopt;
  try {
    return options.fast_handler(req);
  } catch (const std::exception& e) {
    log->error("fast handler threw on {} {}: {}", req.method, req.target, e.what());
    return std::nullopt;  // the pool's handler answers it (with its own error handling)
  }
}

net::awaitable<void> HttpsServer::Impl::write_simple(
    Conn& conn, int status, std::string body, bool keep_alive, unsigned version,
    const std::vector<std::pair<std::string, std::string>>& headers, bool head_only) {
  bhttp::response<bhttp::string_body> res{static_cast<bhttp::status>(status), version};
  bool has_type = false;
  for (const auto& [k, v] : headers) {
    res.set(k, v);
    has_type = has_type || k == "Content-Type" || k == "content-type";
  }
  if (!has_type && status >= 400) res.set(bhttp::field::content_type, "application/json");
  res.body() = std::move(body);
  res.keep_alive(keep_alive);
  res.prepare_payload();
  beast::get_lowest_layer(conn.stream).expires_after(options.write_timeout);
  beast::error_code ec;
  if (head_only) {
    bhttp::response_serializer<bhttp::string_body> sr{res};
    co_await bhttp::async_write_header(conn.stream, sr,
                                       net::redirect_error(net::use_awaitable, ec));
    co_return;
  }
  co_await bhttp::async_write(conn.stream, res, net::redirect_error(net::use_awaitable, ec));
}

// Writes the headers of a chunked body from a BodyStream, then hands the connection to the
// stream writers until the body ends, the client goes away or the server stops. The
// connection is closed afterwards.
net::awaitable<void> HttpsServer::Impl::write_stream(std::shared_ptr<Conn> conn, Response& resp,
                                                     unsigned version) {
  beast::error_code ec;
  auto& lowest = beast::get_lowest_layer(conn->stream);
  auto ex = conn->stream.get_executor();
  bhttp::response<bhttp::empty_body> res{static_cast<bhttp::status>(resp.status), version};
  for (const auto& [k, v] : resp.headers) res.set(k, v);
  res.chunked(true);
  bhttp::response_serializer<bhttp::empty_body> sr{res};
  lowest.expires_after(options.write_timeout);
  co_await bhttp::async_write_header(conn->stream, sr, net::redirect_error(net::use_awaitable, ec));
  if (ec) {
    resp.stream->cancel();
    co_return;
  }
  // From here on, deadlines come from the stream writers.
  lowest.expires_never();
  // From here on the stream writers own the socket and the TLS session (stream_writers.h)
  // until they call back; this coroutine waits for that, then closes the connection.
  auto wait = std::make_shared<StreamWait>();
  const bool adopted = writers.adopt(lowest.socket().native_handle(), conn->stream.native_handle(),
                                     resp.stream, [wait, ex](bool) {
                                       net::post(ex, [wait] {
                                         wait->done = true;
                                         wait->waiter.resume();
                                       });
                                     });
  if (!adopted) resp.stream->cancel();  // the server stops
  while (adopted && !wait->done) co_await park(*wait);
  lowest.socket().close(ec);
}

// Answers 101 with the handler's headers, hands the connection to resp.upgrade on a thread
// of its own and waits (parked) until that returns. Bounded by options.max_upgraded.
net::awaitable<void> HttpsServer::Impl::switch_protocols(std::shared_ptr<Conn> conn,
                                                         beast::flat_buffer& buffer, Response& resp,
                                                         unsigned version) {
  bool admitted = false;
  {
    std::lock_guard lock(upgrades->mu);
    admitted = upgrades->active < options.max_upgraded && !upgrades->gone;
    if (admitted) ++upgrades->active;
  }
  if (!admitted) {
    std::vector<std::pair<std::string, std::string>> retry{{"Retry-After", "1"}};
    co_await write_simple(*conn, 503,
                          status_json(503, "ServiceUnavailable",
                                      "too many streaming connections (exec, attach, "
                                      "port-forward): the limit is " +
                                          std::to_string(options.max_upgraded)),
                          false, version, retry);
    co_return;
  }
  struct Release {
    std::shared_ptr<Upgrades> u;
    ~Release() {
      std::lock_guard lock(u->mu);
      --u->active;
      u->cv.notify_all();
    }
  } release{upgrades};

  beast::error_code ec;
  auto& lowest = beast::get_lowest_layer(conn->stream);
  bhttp::response<bhttp::empty_body> res{bhttp::status::switching_protocols, version};
  for (const auto& [k, v] : resp.headers) res.set(k, v);
  lowest.expires_after(options.write_timeout);
  co_await bhttp::async_write(conn->stream, res, net::redirect_error(net::use_awaitable, ec));
  if (ec) co_return;
  lowest.expires_never();  // tunnels live long; the protocol keeps its own deadlines

  auto duplex = std::make_shared<UpgradedConn>(conn, upgrades, options.write_timeout);
  if (buffer.size() > 0) {
    auto data = buffer.data();
    duplex->preload(std::string(static_cast<const char*>(data.data()), data.size()));
    buffer.consume(buffer.size());
  }
  auto wait = std::make_shared<StreamWait>();
  {
    std::lock_guard lock(upgrades->mu);
    std::erase_if(upgrades->live, [](const std::weak_ptr<Duplex>& w) { return w.expired(); });
    upgrades->live.push_back(duplex);
  }
  auto ex = conn->stream.get_executor();
  auto shared_upgrades = upgrades;
  auto logger = log;
  try {
    std::thread([handler = std::move(resp.upgrade), duplex, wait, ex, shared_upgrades, logger] {
      try {
        handler(*duplex);
      } catch (const std::exception& e) {
        logger->error("switched-protocol handler threw: {}", e.what());
      }
      duplex->close();
      (void)shared_upgrades->post(ex, [wait] {  // dropped when the server is gone
        wait->done = true;
        wait->waiter.resume();
      });
    }).detach();
  } catch (const std::system_error& e) {  // no thread to be had: the connection ends
    log->error("cannot start a thread for a switched connection: {}", e.what());
    duplex->close();
    co_return;
  }
  while (!wait->done && !stopping) co_await park(*wait);
}

}  // namespace k3c::http
