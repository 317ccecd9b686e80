// The benchmark's HTTPS client (see api_client.h). The one translation unit of the bench that
// instantiates Asio/Beast templates: every connection is a coroutine; the blocking
// ApiConnection runs its coroutine to completion on a private io_context.
#include "api_client.h"

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <atomic>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <mutex>
#include <optional>
#include <thread>

#include "bench_report.h"
#include "watch_readers.h"

namespace k3c::bench {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;
using tcp = net::ip::tcp;
using TlsStream = beast::ssl_stream<beast::tcp_stream>;
using namespace std::chrono_literals;

constexpr auto kRequestTimeout = 30s;            // one request and its answer
constexpr uint64_t kAnswerLimit = 512ull << 20;  // a LIST of 10,000 pods is a few MiB

Status transport_error(const std::string& what, const beast::error_code& ec) {
  return error(Code::kServiceUnavailable, what + ": " + ec.message());
}

// Connects, sets TCP_NODELAY and makes the TLS handshake, checking the server's name.
net::awaitable<Status> open_stream(TlsStream& stream, const tcp::endpoint& endpoint,
                                   const std::string& host, std::chrono::nanoseconds timeout) {
  beast::error_code ec;
  auto& lowest = beast::get_lowest_layer(stream);
  lowest.expires_after(timeout);
  co_await lowest.async_connect(endpoint, net::redirect_error(net::use_awaitable, ec));
  if (ec) co_return transport_error("connect", ec);
  lowest.socket().set_option(tcp::no_delay(true), ec);
  Status named = pki::expect_server_name(stream.native_handle(), host);
  if (!named.is_ok()) co_return named;
  co_await stream.async_handshake(net::ssl::stream_base::client,
                                  net::redirect_error(net::use_awaitable, ec));
  if (ec) co_return transport_error("TLS handshake", ec);
  lowest.expires_never();
  co_return Status::ok();
}

bhttp::request<bhttp::string_body> make_request(std::string_view method, std::string_view target,
                                                std::string_view body, const std::string& host) {
  bhttp::request<bhttp::string_body> req{
      bhttp::string_to_verb(beast::string_view(method.data(), method.size())),
      beast::string_view(target.data(), target.size()), 11};
  req.set(bhttp::field::host, host);
  req.set(bhttp::field::accept, "application/json");
  req.set(bhttp::field::user_agent, "k3c_apiserver_bench");
  if (!body.empty()) {
    req.set(bhttp::field::content_type, "application/json");
    req.body() = body;
  }
  req.prepare_payload();
  return req;
}

// One request and its answer on an open keep-alive stream.
net::awaitable<Result<Answer>> exchange(TlsStream& stream, beast::flat_buffer& buffer,
                                        bhttp::request<bhttp::string_body>& req) {
  beast::error_code ec;
  auto& lowest = beast::get_lowest_layer(stream);
  lowest.expires_after(kRequestTimeout);
  co_await bhttp::async_write(stream, req, net::redirect_error(net::use_awaitable, ec));
  if (ec) co_return transport_error("write", ec);
  bhttp::response_parser<bhttp::string_body> parser;
  parser.body_limit(kAnswerLimit);
  co_await bhttp::async_read(stream, buffer, parser, net::redirect_error(net::use_awaitable, ec));
  lowest.expires_never();
  if (ec) co_return transport_error("read", ec);
  co_return Answer{static_cast<int>(parser.get().result_int()), std::move(parser.get().body())};
}

// The blocking connection: each call runs one coroutine on the private io_context.
class BlockingConnection final : public ApiConnection {
 public:
  BlockingConnection(net::ssl::context& ssl, std::string host)
      : stream_(ioc_, ssl), host_(std::move(host)) {}

  Status open(const tcp::endpoint& endpoint, std::chrono::nanoseconds timeout) {
    return run(open_stream(stream_, endpoint, host_, timeout));
  }

  Result<Answer> request(std::string_view method, std::string_view target,
                         std::string_view body) override {
    auto req = make_request(method, target, body, host_);
    return run(exchange(stream_, buffer_, req));
  }

 private:
  template <typename T>
  T run(net::awaitable<T> work) {
    std::optional<T> out;
    net::co_spawn(
        ioc_, [&]() -> net::awaitable<void> { out.emplace(co_await std::move(work)); },
        net::detached);
    ioc_.restart();
    ioc_.run();
    return std::move(*out);
  }

  net::io_context ioc_;
  TlsStream stream_;
  beast::flat_buffer buffer_;
  std::string host_;
};

// What one client of a load run saw; merged into the LoadResult at the end.
struct ClientTally {
  std::unique_ptr<TlsStream> stream;
  beast::flat_buffer buffer;
  std::vector<int64_t> latency_ns;
  int64_t ok = 0;
  std::map<int, int64_t> non_2xx;
  int64_t transport_errors = 0;
  std::string first_error;

  void note_error(const std::string& what) {
    if (first_error.empty()) first_error = what;
  }
};

void run_on_threads(net::io_context& ioc, int threads) {
  ioc.restart();
  std::vector<std::thread> pool;
  for (int i = 1; i < threads; ++i) pool.emplace_back([&ioc] { ioc.run(); });
  ioc.run();
  for (auto& t : pool) t.join();
}

// One watch connection's state; lives in the fleet until the fleet is destroyed.
struct Watcher {
  std::unique_ptr<TlsStream> stream;
  beast::flat_buffer buffer;  // the answer's head
};

class Fleet final : public WatchFleet {
 public:
  Fleet(int watchers, int threads, std::string target, LineHandler on_line)
      : watchers_(watchers),
        threads_(threads),
        target_(std::move(target)),
        on_line_(std::move(on_line)),
        state_(watchers),
        readers_(threads, on_line_) {}
  ~Fleet() override {
    // Stopping the io_context and destroying it closes every stream.
    ioc_.stop();
    for (auto& t : pool_) t.join();
  }
  int watchers() const override { return watchers_; }
  int broken() const override { return readers_.broken(); }

  // Opens watcher i and reads its stream until it ends or the fleet is destroyed. The
  // endpoint, host and TLS context belong to the ApiClient, which outlives the fleet.
  net::awaitable<void> watch_one(int i, const tcp::endpoint& endpoint, const std::string& host,
                                 net::ssl::context& ssl);
  void start() {
    for (int i = 0; i < threads_; ++i) pool_.emplace_back([this] { ioc_.run(); });
  }
  // Waits until every watcher has its headers or failed, or `timeout`.
  Status wait_ready(std::chrono::seconds timeout) {
    auto deadline = SteadyClock::now() + timeout;
    while (ready_.load() + failed_.load() < watchers_) {
      if (SteadyClock::now() > deadline) {
        return error(Code::kServiceUnavailable,
                     format("%d of %d watches open after %lld s", ready_.load(), watchers_,
                            static_cast<long long>(timeout.count())));
      }
      std::this_thread::sleep_for(5ms);
    }
    if (failed_.load() == 0) return Status::ok();
    std::lock_guard lock(mu_);
    return error(Code::kServiceUnavailable,
                 format("%d of %d watches failed to open; first: ", failed_.load(), watchers_) +
                     first_failure_);
  }
  net::io_context& ioc() { return ioc_; }

 private:
  void fail(const std::string& why) {
    {
      std::lock_guard lock(mu_);
      if (first_failure_.empty()) first_failure_ = why;
    }
    ++failed_;
  }

  const int watchers_;
  const int threads_;
  const std::string target_;
  const LineHandler on_line_;
  // Declared before the streams in state_: they must be destroyed before the io_context.
  net::io_context ioc_;
  std::vector<Watcher> state_;
  std::vector<std::thread> pool_;
  std::atomic<int> ready_{0};
  std::atomic<int> failed_{0};
  // Declared after the streams: destroyed first, while the TLS sessions it reads still exist.
  WatchReaders readers_;
  std::mutex mu_;  // guards first_failure_
  std::string first_failure_;
};

net::awaitable<void> Fleet::watch_one(int i, const tcp::endpoint& endpoint, const std::string& host,
                                      net::ssl::context& ssl) {
  Watcher& w = state_[i];
  w.stream = std::make_unique<TlsStream>(ioc_, ssl);
  Status opened = co_await open_stream(*w.stream, endpoint, host, 30s);
  if (!opened.is_ok()) co_return fail(opened.to_string());
  auto req = make_request("GET", target_, {}, host);
  beast::error_code ec;
  co_await bhttp::async_write(*w.stream, req, net::redirect_error(net::use_awaitable, ec));
  if (ec) co_return fail(transport_error("write", ec).to_string());
  bhttp::response_parser<bhttp::string_body> parser;
  co_await bhttp::async_read_header(*w.stream, w.buffer, parser,
                                    net::redirect_error(net::use_awaitable, ec));
  if (ec) co_return fail(transport_error("read", ec).to_string());
  if (parser.get().result_int() != 200) {
    co_return fail(format("HTTP %d", parser.get().result_int()));
  }
  // The body is read by the readers (watch_readers.h), straight off the socket: no event has
  // been sent yet (the writer starts once every watch is open), so nothing is lost in the TLS
  // stream's buffers when the session moves to a socket BIO.
  SSL* session = w.stream->native_handle();
  if (SSL_pending(session) > 0 || BIO_ctrl_pending(SSL_get_rbio(session)) > 0) {
    co_return fail("the server sent body bytes before the watch was handed to the readers");
  }
  std::string early = beast::buffers_to_string(w.buffer.data());
  int fd = beast::get_lowest_layer(*w.stream).socket().release(ec);
  if (ec) co_return fail(transport_error("release", ec).to_string());
  readers_.add(i, fd, session, std::move(early));
  ++ready_;
}

}  // namespace

int64_t LoadResult::errors() const {
  int64_t n = transport_errors;
  for (const auto& [code, count] : non_2xx) n += count;
  return n;
}

struct ApiClient::Impl {
  Impl(std::string h, uint16_t port, pki::SslContextPtr tls)
      : host(std::move(h)), endpoint(net::ip::make_address(host), port), ssl(tls.release()) {}

  // One client of a load run: requests back to back until the deadline or the count.
  net::awaitable<void> load_client(net::io_context& ioc, ClientTally& t, int client,
                                   const RequestMaker& make, std::atomic<int64_t>& next,
                                   int64_t max_requests, SteadyClock::time_point deadline);
  net::awaitable<void> reconnect(ClientTally& t, net::io_context& ioc) {
    t.stream = std::make_unique<TlsStream>(ioc, ssl);
    Status s = co_await open_stream(*t.stream, endpoint, host, 10s);
    if (s.is_ok()) co_return;
    t.stream.reset();
    ++t.transport_errors;
    t.note_error(s.to_string());
  }

  std::string host;
  tcp::endpoint endpoint;
  net::ssl::context ssl;
};

net::awaitable<void> ApiClient::Impl::load_client(net::io_context& ioc, ClientTally& t, int client,
                                                  const RequestMaker& make,
                                                  std::atomic<int64_t>& next, int64_t max_requests,
                                                  SteadyClock::time_point deadline) {
  while (SteadyClock::now() < deadline) {
    const int64_t n = next.fetch_add(1);
    if (n >= max_requests) break;
    if (!t.stream) {
      // The previous request failed on the connection: one new connection, else give up.
      co_await reconnect(t, ioc);
      if (!t.stream) break;
    }
    RequestSpec spec = make(client, n);
    auto req = make_request(spec.method, spec.target, spec.body, host);
    const int64_t start = now_ns();
    Result<Answer> answer = co_await exchange(*t.stream, t.buffer, req);
    if (!answer.is_ok()) {
      ++t.transport_errors;
      t.note_error(answer.status().to_string());
      t.stream.reset();
      t.buffer.clear();
      continue;
    }
    t.latency_ns.push_back(now_ns() - start);
    if (answer->status / 100 == 2) {
      ++t.ok;
    } else {
      ++t.non_2xx[answer->status];
      t.note_error(format("HTTP %d: ", answer->status) + answer->body.substr(0, 300));
    }
  }
}

ApiClient::ApiClient(std::string host, uint16_t port, pki::SslContextPtr tls)
    : impl_(std::make_unique<Impl>(std::move(host), port, std::move(tls))) {}

ApiClient::~ApiClient() = default;

Result<std::unique_ptr<ApiConnection>> ApiClient::connect(std::chrono::milliseconds timeout) {
  auto conn = std::make_unique<BlockingConnection>(impl_->ssl, impl_->host);
  RETURN_IF_ERROR(conn->open(impl_->endpoint, timeout));
  return std::unique_ptr<ApiConnection>(std::move(conn));
}

LoadResult ApiClient::run_load(const LoadOptions& options, const RequestMaker& make) {
  net::io_context ioc;
  std::vector<ClientTally> tallies(options.clients);
  for (ClientTally& t : tallies) net::co_spawn(ioc, impl_->reconnect(t, ioc), net::detached);
  run_on_threads(ioc, options.threads);

  std::atomic<int64_t> next{0};
  const auto start = SteadyClock::now();
  const auto deadline = start + options.duration;
  for (int c = 0; c < options.clients; ++c) {
    if (!tallies[c].stream) continue;  // its connect failed: counted already
    net::co_spawn(
        ioc, impl_->load_client(ioc, tallies[c], c, make, next, options.max_requests, deadline),
        net::detached);
  }
  run_on_threads(ioc, options.threads);

  LoadResult out;
  out.seconds = std::chrono::duration<double>(SteadyClock::now() - start).count();
  for (ClientTally& t : tallies) {
    out.answered += static_cast<int64_t>(t.latency_ns.size());
    out.ok += t.ok;
    for (const auto& [code, count] : t.non_2xx) out.non_2xx[code] += count;
    out.transport_errors += t.transport_errors;
    if (out.first_error.empty()) out.first_error = t.first_error;
    out.latency_ns.insert(out.latency_ns.end(), t.latency_ns.begin(), t.latency_ns.end());
  }
  return out;
}

Result<std::unique_ptr<WatchFleet>> ApiClient::watch(int watchers, const std::string& target,
                                                     const LineHandler& on_line, int threads,
                                                     std::chrono::seconds timeout) {
  auto fleet = std::make_unique<Fleet>(watchers, threads, target, on_line);
  for (int i = 0; i < watchers; ++i) {
    net::co_spawn(fleet->ioc(), fleet->watch_one(i, impl_->endpoint, impl_->host, impl_->ssl),
                  net::detached);
  }
  fleet->start();
  RETURN_IF_ERROR(fleet->wait_ready(timeout));
  return std::unique_ptr<WatchFleet>(std::move(fleet));
}

}  // namespace k3c::bench
