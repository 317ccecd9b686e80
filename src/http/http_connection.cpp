// Kept-alive HTTPS connections (see http_connection.h). Each connection owns an io_context
// that the calling thread drives until the operation it started completes; the tcp_stream's
// expiry bounds every step, so a blocking API still never waits past its deadline. A streamed
// read may outlive one read_stream() call: it stays pending and the next call drives it on.
#include "http/http_connection.h"

#include <algorithm>
#include <atomic>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <cctype>
#include <deque>
#include <functional>
#include <thread>
#include <limits>
#include <optional>

#include "core/version.h"
#include "http/internal/client_tls.h"

namespace k3c::http {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;
using tcp = net::ip::tcp;
using SteadyClock = std::chrono::steady_clock;

using internal::kHeaderLimit;
using internal::kReadChunk;
constexpr size_t kErrorBodyLimit = 1 << 20;

bool is_2xx(int status) { return status >= 200 && status <= 299; }

template <class Fields>
std::vector<std::pair<std::string, std::string>> header_list(const Fields& fields) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& field : fields) {
    std::string name(field.name_string());
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    out.emplace_back(std::move(name), std::string(field.value()));
  }
  return out;
}

}  // namespace

struct ClientTlsContext::Impl {
  std::unique_ptr<net::ssl::context> context;
  bool verify = true;
};

ClientTlsContext::ClientTlsContext(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ClientTlsContext::~ClientTlsContext() = default;

Result<std::shared_ptr<const ClientTlsContext>> ClientTlsContext::make(const ClientTls& tls) {
  auto impl = std::make_unique<Impl>();
  ASSIGN_OR_RETURN(impl->context, internal::make_tls_context(tls));
  impl->verify = !tls.insecure_skip_verify;
  return std::shared_ptr<const ClientTlsContext>(
      std::make_shared<ClientTlsContext>(std::move(impl)));
}

struct Connection::Impl {
  Impl(const Url& url, std::shared_ptr<const ClientTlsContext> context)
      : origin(url), tls(std::move(context)), stream(ioc, *tls->impl().context) {}

  Url origin;
  std::shared_ptr<const ClientTlsContext> tls;
  net::io_context ioc;  // before the stream: it must outlive it
  beast::ssl_stream<beast::tcp_stream> stream;
  beast::flat_buffer buffer;
  std::string what;  // "METHOD url" of the request in progress, for errors
  bool broken = false;
  bool keep_alive = false;
  std::atomic<bool> cancelled{false};

  // The streamed answer, between start_stream() and its end.
  std::optional<bhttp::response_parser<bhttp::buffer_body>> parser;
  std::vector<char> chunk = std::vector<char>(kReadChunk);
  bool reading = false;    // an async_read_some is pending
  bool read_done = false;  // ... and it completed, with read_ec
  beast::error_code read_ec;
  bool ended = false;

  beast::tcp_stream& tcp() { return beast::get_lowest_layer(stream); }

  // Runs the io_context until `done` (set by the handler of the operation just started).
  void drive(const bool& done) {
    ioc.restart();
    while (!done && ioc.run_one() > 0) {
    }
  }

  Status fail(const beast::error_code& ec, const std::string& step) {
    broken = true;
    if (cancelled) return error(Code::kServiceUnavailable, what + ": cancelled");
    if (ec == beast::error::timeout) return error(Code::kTimeout, what + ": " + step + ": timeout");
    return error(Code::kServiceUnavailable, what + ": " + step + ": " + ec.message());
  }

  Status write(const OutgoingRequest& request, SteadyClock::time_point deadline) {
    if (broken || cancelled) return error(Code::kServiceUnavailable, "connection is closed");
    what = request.method + " " + origin.scheme + "://" + origin.authority() + request.target;
    bhttp::request<bhttp::string_body> req;
    req.version(11);
    req.method_string(request.method);
    req.target(request.target);
    req.set(bhttp::field::host, origin.authority());
    req.set(bhttp::field::user_agent, std::string("k3c/") + version::kVersion);
    // A caller's header replaces a default of the same name; a repeated one (SPDY's list of
    // X-Stream-Protocol-Version values) is sent as often as it is given.
    for (size_t i = 0; i < request.headers.size(); ++i) {
      const auto& [name, value] = request.headers[i];
      bool repeated = false;
      for (size_t j = 0; j < i && !repeated; ++j)
        repeated = beast::iequals(request.headers[j].first, name);
      if (repeated) {
        req.insert(name, value);
      } else {
        req.set(name, value);
      }
    }
    if (!request.body.empty() || request.method == "POST" || request.method == "PUT" ||
        request.method == "PATCH" || request.method == "DELETE") {
      req.body() = request.body;
      req.prepare_payload();
    }
    req.keep_alive(true);
    tcp().expires_at(deadline);
    bool done = false;
    beast::error_code ec;
    bhttp::async_write(stream, req, [&](beast::error_code e, size_t) {
      ec = e;
      done = true;
    });
    drive(done);
    if (ec) return fail(ec, "write request");
    return Status::ok();
  }

  // Writes the request and reads the answer's status line and headers into a new parser
  // (the body, if any, is left for the caller); the connection is not kept alive afterwards.
  Result<ClientResponse> send_and_read_head(const OutgoingRequest& request,
                                            std::chrono::milliseconds timeout) {
    RETURN_IF_ERROR(write(request, SteadyClock::now() + timeout));
    parser.emplace();
    parser->header_limit(kHeaderLimit);
    parser->body_limit(std::numeric_limits<std::uint64_t>::max());
    bool done = false;
    beast::error_code ec;
    bhttp::async_read_header(stream, buffer, *parser, [&](beast::error_code e, size_t) {
      ec = e;
      done = true;
    });
    drive(done);
    if (ec) return fail(ec, "read response");
    ClientResponse response;
    response.status = static_cast<int>(parser->get().result_int());
    response.headers = header_list(parser->get());
    response.final_url = origin.to_string();
    keep_alive = false;
    return response;
  }

  // Reads what is left of the parser's body (a complete, bounded answer) into `body`.
  Status read_rest(std::string& body, size_t limit) {
    while (!parser->is_done()) {
      parser->get().body().data = chunk.data();
      parser->get().body().size = chunk.size();
      bool done = false;
      beast::error_code ec;
      bhttp::async_read(stream, buffer, *parser, [&](beast::error_code e, size_t) {
        ec = e;
        done = true;
      });
      drive(done);
      if (ec == bhttp::error::need_buffer) ec = {};
      if (ec) return fail(ec, "read body");
      const size_t got = chunk.size() - parser->get().body().size;
      if (body.size() + got > limit) {
        broken = true;
        return error(Code::kRequestEntityTooLarge, what + ": answer over the limit of " +
                                                       std::to_string(limit) + " bytes");
      }
      body.append(chunk.data(), got);
    }
    return Status::ok();
  }
};

Connection::Connection(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Connection::~Connection() {
  // Ends what is pending (a streamed read) and runs its handler, which refers to impl_.
  beast::error_code ignored;
  impl_->tcp().socket().close(ignored);
  impl_->ioc.restart();
  impl_->ioc.run();
}

Result<std::unique_ptr<Connection>> Connection::open(const Url& origin,
                                                     std::shared_ptr<const ClientTlsContext> tls,
                                                     std::chrono::milliseconds timeout) {
  if (origin.scheme != "https") {
    return error(Code::kBadRequest, "only https:// servers are supported: " + origin.to_string());
  }
  if (!tls) return error(Code::kInvalid, "no TLS context");
  const bool verify = tls->impl().verify;
  auto impl = std::make_unique<Impl>(origin, std::move(tls));
  impl->what = "dial tcp " + origin.authority();
  const auto deadline = SteadyClock::now() + timeout;
  tcp::resolver resolver(impl->ioc);
  beast::error_code ec;
  auto endpoints = resolver.resolve(origin.host, std::to_string(origin.port), ec);
  if (ec) return error(Code::kServiceUnavailable, impl->what + ": lookup: " + ec.message());
  impl->tcp().expires_at(deadline);
  bool done = false;
  impl->tcp().async_connect(endpoints, [&](beast::error_code e, const tcp::endpoint&) {
    ec = e;
    done = true;
  });
  impl->drive(done);
  if (ec) return impl->fail(ec, "connect");
  // Small requests one after another on one connection: Nagle's delay would stall each.
  impl->tcp().socket().set_option(tcp::no_delay(true), ec);
  RETURN_IF_ERROR(internal::expect_host(impl->stream.native_handle(), origin.host, verify));
  done = false;
  impl->stream.async_handshake(net::ssl::stream_base::client, [&](beast::error_code e) {
    ec = e;
    done = true;
  });
  impl->drive(done);
  if (ec) {
    const long result = SSL_get_verify_result(impl->stream.native_handle());
    if (verify && result != X509_V_OK) {
      return error(Code::kInvalid, impl->what + ": tls: failed to verify certificate: x509: " +
                                       X509_verify_cert_error_string(result));
    }
    return impl->fail(ec, "tls handshake");
  }
  return std::unique_ptr<Connection>(new Connection(std::move(impl)));
}

Result<ClientResponse> Connection::exchange(const OutgoingRequest& request,
                                            std::chrono::milliseconds timeout, size_t body_limit) {
  Impl& c = *impl_;
  const auto deadline = SteadyClock::now() + timeout;
  RETURN_IF_ERROR(c.write(request, deadline));
  bhttp::response_parser<bhttp::string_body> parser;
  parser.header_limit(kHeaderLimit);
  parser.body_limit(body_limit);
  if (request.method == "HEAD") parser.skip(true);
  bool done = false;
  beast::error_code ec;
  bhttp::async_read(c.stream, c.buffer, parser, [&](beast::error_code e, size_t) {
    ec = e;
    done = true;
  });
  c.drive(done);
  if (ec == bhttp::error::body_limit) {
    c.broken = true;
    return error(Code::kRequestEntityTooLarge, c.what + ": answer over the limit of " +
                                                   std::to_string(body_limit) + " bytes");
  }
  if (ec) return c.fail(ec, "read response");
  auto message = parser.release();
  if (message.body().size() > body_limit) {  // also when the parser's own limit let it pass
    c.broken = true;
    return error(Code::kRequestEntityTooLarge, c.what + ": answer over the limit of " +
                                                   std::to_string(body_limit) + " bytes");
  }
  c.keep_alive = message.keep_alive();
  if (!c.keep_alive) c.broken = true;
  ClientResponse response;
  response.status = static_cast<int>(message.result_int());
  response.headers = header_list(message);
  response.body = std::move(message.body());
  response.final_url = c.origin.to_string();
  return response;
}

Result<ClientResponse> Connection::start_stream(const OutgoingRequest& request,
                                                std::chrono::milliseconds timeout) {
  Impl& c = *impl_;
  ASSIGN_OR_RETURN(ClientResponse response, c.send_and_read_head(request, timeout));
  // The connection is not kept for another request after a stream.
  if (!is_2xx(response.status)) {
    RETURN_IF_ERROR(c.read_rest(response.body, kErrorBodyLimit));
    c.ended = true;
    c.broken = true;
    return response;
  }
  // A stream may stay silent between events for as long as the server likes; only the
  // caller's waits (and cancel()) bound it.
  c.tcp().expires_never();
  c.ended = c.parser->is_done();
  return response;
}

Result<std::string> Connection::read_stream(std::chrono::milliseconds wait) {
  Impl& c = *impl_;
  if (c.cancelled) return error(Code::kServiceUnavailable, c.what + ": cancelled");
  if (!c.parser || c.ended) return std::string();
  const auto deadline = SteadyClock::now() + wait;
  while (SteadyClock::now() < deadline || c.read_done) {
    if (!c.reading) {
      c.parser->get().body().data = c.chunk.data();
      c.parser->get().body().size = c.chunk.size();
      c.reading = true;
      c.read_done = false;
      bhttp::async_read_some(c.stream, c.buffer, *c.parser, [&c](beast::error_code e, size_t) {
        c.read_ec = e;
        c.read_done = true;
      });
    }
    c.ioc.restart();
    while (!c.read_done && c.ioc.run_one_until(deadline) > 0) {
    }
    if (!c.read_done) return std::string();  // still pending; the next call drives it on
    c.reading = false;
    c.read_done = false;
    if (c.read_ec == bhttp::error::need_buffer) c.read_ec = {};
    if (c.read_ec) return c.fail(c.read_ec, "read stream");
    const size_t got = c.chunk.size() - c.parser->get().body().size;
    if (c.parser->is_done()) c.ended = true;
    if (got > 0 || c.ended) return std::string(c.chunk.data(), got);
  }
  return std::string();
}

Result<ClientResponse> Connection::start_upgrade(const OutgoingRequest& request,
                                                 std::chrono::milliseconds timeout) {
  Impl& c = *impl_;
  ASSIGN_OR_RETURN(ClientResponse response, c.send_and_read_head(request, timeout));
  c.broken = true;  // never reused: it carries another protocol now, or it is done
  if (response.status != 101) {
    RETURN_IF_ERROR(c.read_rest(response.body, kErrorBodyLimit));
    return response;
  }
  c.tcp().expires_never();  // the protocol keeps its own deadlines
  return response;
}

void Connection::splice(Duplex& peer) {
  Impl& c = *impl_;
  // Bytes that came in behind the 101's headers belong to the new protocol.
  if (c.buffer.size() > 0) {
    const std::string early = beast::buffers_to_string(c.buffer.data());
    c.buffer.consume(c.buffer.size());
    if (!peer.write_all(early).is_ok()) return peer.close();
  }
  // This thread drives every operation on the TLS stream (reads from it, and the writes the
  // other thread posts), so the stream is only ever touched from one thread.
  std::deque<std::string> queue;  // touched on this thread only (posted handlers)
  bool writing = false, closed = false;
  std::function<void()> write_next = [&] {
    if (writing || queue.empty() || closed) return;
    writing = true;
    net::async_write(c.stream, net::buffer(queue.front()), [&](beast::error_code e, size_t) {
      writing = false;
      queue.pop_front();
      if (e) closed = true;
      write_next();
    });
  };
  std::thread upstream([&] {
    std::vector<char> buffer(kReadChunk);
    for (;;) {
      Result<size_t> got = peer.read_some(buffer.data(), buffer.size(), std::chrono::seconds(1));
      if (!got.is_ok() && got.status().code() == Code::kTimeout) continue;
      if (!got.is_ok() || *got == 0) break;
      std::string bytes(buffer.data(), *got);
      net::post(c.ioc, [&, bytes = std::move(bytes)]() mutable {
        queue.push_back(std::move(bytes));
        write_next();
      });
    }
    cancel();  // the peer is gone: end the connection, which ends the read below
  });
  std::function<void()> read_next = [&] {
    c.stream.async_read_some(net::buffer(c.chunk), [&](beast::error_code e, size_t n) {
      if (n > 0 && !peer.write_all(std::string_view(c.chunk.data(), n)).is_ok()) e = net::error::eof;
      if (e) {
        closed = true;
        peer.close();  // wakes the other thread's read
        return;
      }
      read_next();
    });
  };
  read_next();
  c.ioc.restart();
  c.ioc.run();  // until the read ends and the posted writes and the cancel have run
  upstream.join();
  closed = true;  // what the other thread posted last runs now, and starts no new write
  c.ioc.restart();
  c.ioc.poll();
}

bool Connection::stream_ended() const { return impl_->ended; }

void Connection::cancel() {
  if (impl_->cancelled.exchange(true)) return;
  // The socket belongs to whichever thread drives the io_context: close it there.
  Impl* c = impl_.get();
  net::post(c->ioc, [c] {
    beast::error_code ignored;
    c->tcp().socket().shutdown(tcp::socket::shutdown_both, ignored);
    c->tcp().cancel();
  });
}

bool Connection::reusable() const {
  return !impl_->broken && !impl_->cancelled && impl_->keep_alive;
}

}  // namespace k3c::http
