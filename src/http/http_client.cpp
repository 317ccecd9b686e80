// The blocking HTTP client (see http_client.h). Like https_server.cpp, this is a translation
// unit that instantiates Asio/Beast templates; keep them here. Each hop of a request runs as
// a coroutine on an io_context of its own, driven by the calling thread until it ends, so the
// Beast timeouts (tcp_stream's expiry) bound every step while the API stays synchronous.
#include "http/http_client.h"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <cctype>
#include <limits>
#include <memory>

#include "core/version.h"
#include "http/internal/client_tls.h"

namespace k3c::http {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;

using internal::kHeaderLimit;
using internal::kReadChunk;

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool is_redirect(int status) {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

std::string openssl_reason() {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "unknown OpenSSL error";
  char text[256];
  ERR_error_string_n(code, text, sizeof text);
  return text;
}

// Trusts the PEM certificates in `pem` (besides nothing else: the store starts empty).
Status add_ca_pem(SSL_CTX* ctx, const std::string& pem) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free);
  X509_STORE* store = SSL_CTX_get_cert_store(ctx);
  int added = 0;
  while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    X509_STORE_add_cert(store, cert);
    X509_free(cert);
    ++added;
  }
  ERR_clear_error();  // the end of the PEM text reads as an error
  if (added == 0) return error(Code::kInvalid, "the CA bundle holds no PEM certificate");
  return Status::ok();
}

// The client certificate (with any chain after it) and its key from PEM text.
Status use_client_pem(SSL_CTX* ctx, const std::string& cert_pem, const std::string& key_pem) {
  std::unique_ptr<BIO, decltype(&BIO_free)> certs(
      BIO_new_mem_buf(cert_pem.data(), static_cast<int>(cert_pem.size())), &BIO_free);
  X509* leaf = PEM_read_bio_X509(certs.get(), nullptr, nullptr, nullptr);
  if (leaf == nullptr || SSL_CTX_use_certificate(ctx, leaf) != 1) {
    if (leaf) X509_free(leaf);
    return error(Code::kInvalid, "cannot load the client certificate: " + openssl_reason());
  }
  X509_free(leaf);
  while (X509* extra = PEM_read_bio_X509(certs.get(), nullptr, nullptr, nullptr)) {
    if (SSL_CTX_add0_chain_cert(ctx, extra) != 1) X509_free(extra);
  }
  ERR_clear_error();  // the end of the PEM text reads as an error
  std::unique_ptr<BIO, decltype(&BIO_free)> key(
      BIO_new_mem_buf(key_pem.data(), static_cast<int>(key_pem.size())), &BIO_free);
  EVP_PKEY* pkey = PEM_read_bio_PrivateKey(key.get(), nullptr, nullptr, nullptr);
  const bool ok = pkey != nullptr && SSL_CTX_use_PrivateKey(ctx, pkey) == 1 &&
                  SSL_CTX_check_private_key(ctx) == 1;
  if (pkey) EVP_PKEY_free(pkey);
  if (!ok) return error(Code::kInvalid, "cannot load the client key: " + openssl_reason());
  return Status::ok();
}

}  // namespace

namespace internal {

Result<std::unique_ptr<net::ssl::context>> make_tls_context(const ClientTls& tls) {
  auto ctx = std::make_unique<net::ssl::context>(net::ssl::context::tls_client);
  SSL_CTX* native = ctx->native_handle();
  SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION);
  static const unsigned char kAlpn[] = "\x08http/1.1";
  SSL_CTX_set_alpn_protos(native, kAlpn, sizeof kAlpn - 1);
  if (tls.insecure_skip_verify) {
    SSL_CTX_set_verify(native, SSL_VERIFY_NONE, nullptr);
  } else {
    SSL_CTX_set_verify(native, SSL_VERIFY_PEER, nullptr);
    if (!tls.ca_pem.empty()) {
      RETURN_IF_ERROR(add_ca_pem(native, tls.ca_pem));
    } else if (!tls.ca_file.empty()) {
      if (SSL_CTX_load_verify_locations(native, tls.ca_file.c_str(), nullptr) != 1) {
        return error(Code::kInvalid,
                     "cannot load CA file " + tls.ca_file + ": " + openssl_reason());
      }
    } else if (SSL_CTX_set_default_verify_paths(native) != 1) {
      return error(Code::kInternal, "cannot load the system CAs: " + openssl_reason());
    }
  }
  if (tls.cert_file.empty() != tls.key_file.empty()) {
    return error(Code::kInvalid, "a client certificate needs both a certificate and a key file");
  }
  if (tls.cert_pem.empty() != tls.key_pem.empty()) {
    return error(Code::kInvalid, "a client certificate needs both a certificate and a key");
  }
  if (!tls.cert_pem.empty()) RETURN_IF_ERROR(use_client_pem(native, tls.cert_pem, tls.key_pem));
  if (!tls.cert_file.empty()) {
    if (SSL_CTX_use_certificate_chain_file(native, tls.cert_file.c_str()) != 1) {
      return error(Code::kInvalid,
                   "cannot load client certificate " + tls.cert_file + ": " + openssl_reason());
    }
    if (SSL_CTX_use_PrivateKey_file(native, tls.key_file.c_str(), SSL_FILETYPE_PEM) != 1 ||
        SSL_CTX_check_private_key(native) != 1) {
      return error(Code::kInvalid,
                   "cannot load client key " + tls.key_file + ": " + openssl_reason());
    }
  }
  return ctx;
}

Status expect_host(SSL* ssl, const std::string& host, bool verify) {
  unsigned char addr[16];
  const bool is_ip =
      inet_pton(AF_INET, host.c_str(), addr) == 1 || inet_pton(AF_INET6, host.c_str(), addr) == 1;
  if (!is_ip && SSL_set_tlsext_host_name(ssl, host.c_str()) != 1) {
    return error(Code::kInvalid, "bad TLS server name " + host);
  }
  if (!verify) return Status::ok();
  const int rc = is_ip ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host.c_str())
                       : SSL_set1_host(ssl, host.c_str());
  if (rc != 1) return error(Code::kInvalid, "bad TLS server name " + host);
  return Status::ok();
}

}  // namespace internal

namespace {

using internal::expect_host;
using internal::make_tls_context;

// One request/response on one connection, without redirects.
struct Hop {
  const ClientRequest& request;
  const Url& url;
  const std::string& method;
  const std::vector<std::pair<std::string, std::string>>& headers;
  const std::string& body;
  Clock::time_point deadline;
  bool stop_at_redirect;  // a 3xx with Location is returned without reading its body
  net::ssl::context* tls = nullptr;
};

class HopRunner {
 public:
  explicit HopRunner(const Hop& hop) : hop_(hop) {}

  net::awaitable<void> run(tcp::resolver& resolver, beast::tcp_stream& tcp) {
    beast::error_code ec;
    auto endpoints = co_await resolver.async_resolve(hop_.url.host, std::to_string(hop_.url.port),
                                                     net::redirect_error(net::use_awaitable, ec));
    if (ec) {
      fail(Code::kServiceUnavailable, "dial tcp: lookup " + hop_.url.host + ": " + ec.message());
      co_return;
    }
    arm(tcp);
    co_await tcp.async_connect(endpoints, net::redirect_error(net::use_awaitable, ec));
    if (ec) {
      fail_io(ec, "dial tcp " + hop_.url.host + ":" + std::to_string(hop_.url.port));
      co_return;
    }
    if (hop_.tls == nullptr) {
      co_await talk(tcp, tcp);
      co_return;
    }
    beast::ssl_stream<beast::tcp_stream> tls(std::move(tcp), *hop_.tls);
    if (Status s =
            expect_host(tls.native_handle(), hop_.url.host, !hop_.request.tls.insecure_skip_verify);
        !s.is_ok()) {
      result_ = s;
      co_return;
    }
    arm(beast::get_lowest_layer(tls));
    co_await tls.async_handshake(net::ssl::stream_base::client,
                                 net::redirect_error(net::use_awaitable, ec));
    if (ec) {
      const long verify = SSL_get_verify_result(tls.native_handle());
      if (verify != X509_V_OK && !hop_.request.tls.insecure_skip_verify) {
        fail(Code::kInvalid, "tls: failed to verify certificate: x509: " +
                                 std::string(X509_verify_cert_error_string(verify)));
      } else {
        fail_io(ec, "tls handshake");
      }
      co_return;
    }
    co_await talk(tls, beast::get_lowest_layer(tls));
  }

  Result<ClientResponse> take() { return std::move(result_); }

 private:
  void arm(beast::tcp_stream& tcp) {
    tcp.expires_at(std::min(hop_.deadline, Clock::now() + hop_.request.idle_timeout));
  }
  void fail(Code code, const std::string& what) {
    result_ = error(code, hop_.method + " " + hop_.url.to_string() + ": " + what);
  }
  void fail_io(const beast::error_code& ec, const std::string& step) {
    if (ec == beast::error::timeout) {
      const bool deadline = Clock::now() >= hop_.deadline;
      fail(Code::kTimeout,
           step + ": " +
               (deadline
                    ? "deadline exceeded (" + std::to_string(hop_.request.timeout.count()) + "ms)"
                    : "no data for " + std::to_string(hop_.request.idle_timeout.count()) + "ms"));
    } else if (ec.category() == net::error::get_ssl_category() ||
               ec == net::ssl::error::stream_truncated) {
      fail(Code::kInvalid, step + ": " + ec.message());
    } else if (ec.category() == bhttp::make_error_code(bhttp::error::bad_version).category()) {
      fail(Code::kInvalid, step + ": malformed HTTP answer: " + ec.message());
    } else {
      fail(Code::kServiceUnavailable, step + ": " + ec.message());
    }
  }

  template <class Stream>
  net::awaitable<void> talk(Stream& stream, beast::tcp_stream& tcp) {
    beast::error_code ec;
    bhttp::request<bhttp::string_body> req;
    req.version(11);
    req.method_string(hop_.method);
    req.target(hop_.url.target);
    req.set(bhttp::field::host, hop_.url.authority());
    req.set(bhttp::field::user_agent, std::string("k3c/") + version::kVersion);
    for (const auto& [name, value] : hop_.headers) req.set(name, value);
    if (!hop_.body.empty() || hop_.method == "POST" || hop_.method == "PUT" ||
        hop_.method == "PATCH") {
      req.body() = hop_.body;
      req.prepare_payload();
    }
    arm(tcp);
    co_await bhttp::async_write(stream, req, net::redirect_error(net::use_awaitable, ec));
    if (ec) {
      fail_io(ec, "write request");
      co_return;
    }
    beast::flat_buffer buffer;
    bhttp::response_parser<bhttp::buffer_body> parser;
    parser.header_limit(kHeaderLimit);
    parser.body_limit(std::numeric_limits<std::uint64_t>::max());
    if (hop_.method == "HEAD") parser.skip(true);
    arm(tcp);
    co_await bhttp::async_read_header(stream, buffer, parser,
                                      net::redirect_error(net::use_awaitable, ec));
    if (ec) {
      fail_io(ec, "read response");
      co_return;
    }
    ClientResponse resp;
    resp.status = static_cast<int>(parser.get().result_int());
    resp.final_url = hop_.url.to_string();
    for (const auto& field : parser.get()) {
      const auto name = field.name_string();
      resp.headers.emplace_back(lower(std::string_view(name.data(), name.size())),
                                std::string(field.value()));
    }
    if (hop_.stop_at_redirect && is_redirect(resp.status) && resp.header("location")) {
      result_ = std::move(resp);
      co_return;
    }
    const bool to_sink = hop_.request.sink && resp.status >= 200 && resp.status < 300;
    std::vector<char> chunk(kReadChunk);
    while (!parser.is_done()) {
      parser.get().body().data = chunk.data();
      parser.get().body().size = chunk.size();
      arm(tcp);
      co_await bhttp::async_read(stream, buffer, parser,
                                 net::redirect_error(net::use_awaitable, ec));
      if (ec == bhttp::error::need_buffer) ec = {};
      if (ec) {
        fail_io(ec, "read body");
        co_return;
      }
      const size_t got = chunk.size() - parser.get().body().size;
      if (got == 0) continue;
      const std::string_view piece(chunk.data(), got);
      if (to_sink) {
        if (Status s = hop_.request.sink(piece); !s.is_ok()) {
          result_ = s;
          co_return;
        }
      } else if (resp.body.size() + got > hop_.request.body_limit) {
        fail(Code::kRequestEntityTooLarge, "response body over the limit of " +
                                               std::to_string(hop_.request.body_limit) + " bytes");
        co_return;
      } else {
        resp.body.append(piece);
      }
    }
    result_ = std::move(resp);
  }

  const Hop& hop_;
  Result<ClientResponse> result_ = error(Code::kInternal, "request did not run");
};

Result<ClientResponse> run_hop(const Hop& hop) {
  net::io_context ioc;
  tcp::resolver resolver(ioc);
  beast::tcp_stream tcp(ioc);
  HopRunner runner(hop);
  std::string crashed;
  net::co_spawn(ioc, runner.run(resolver, tcp), [&crashed](std::exception_ptr e) {
    if (!e) return;
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& ex) {
      crashed = ex.what();
    }
  });
  // The stream's expiry bounds connect, handshake, reads and writes; name resolution has no
  // timer of its own, so the loop itself stops at the deadline (plus a grace for the last
  // step's own timeout to report first).
  ioc.run_until(hop.deadline + std::chrono::seconds(1));
  if (!ioc.stopped()) {
    ioc.stop();
    return error(Code::kTimeout, hop.method + " " + hop.url.to_string() + ": deadline exceeded");
  }
  if (!crashed.empty()) {
    return error(Code::kInternal, hop.method + " " + hop.url.to_string() + ": " + crashed);
  }
  return runner.take();
}

}  // namespace

std::optional<std::string_view> ClientResponse::header(std::string_view name) const {
  const std::string wanted = lower(name);
  for (const auto& [key, value] : headers) {
    if (key == wanted) return std::string_view(value);
  }
  return std::nullopt;
}

std::string Url::authority() const {
  std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  const bool default_port = (scheme == "https" && port == 443) || (scheme == "http" && port == 80);
  return default_port ? h : h + ":" + std::to_string(port);
}

std::string Url::to_string() const { return scheme + "://" + authority() + target; }

Result<Url> parse_url(std::string_view text) {
  auto bad = [&](const std::string& why) {
    return error(Code::kBadRequest, "invalid URL \"" + std::string(text) + "\": " + why);
  };
  const size_t colon = text.find("://");
  if (colon == std::string_view::npos) return bad("no scheme");
  Url url;
  url.scheme = lower(text.substr(0, colon));
  if (url.scheme != "http" && url.scheme != "https") return bad("scheme must be http or https");
  std::string_view rest = text.substr(colon + 3);
  rest = rest.substr(0, rest.find('#'));
  const size_t path_at = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, path_at);
  url.target = path_at == std::string_view::npos ? "/" : std::string(rest.substr(path_at));
  if (url.target.front() == '?') url.target.insert(0, "/");
  if (authority.find('@') != std::string_view::npos) return bad("user info is not supported");
  std::string_view port_text;
  if (authority.starts_with("[")) {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return bad("unclosed [");
    url.host = std::string(authority.substr(1, close - 1));
    std::string_view after = authority.substr(close + 1);
    if (!after.empty() && !after.starts_with(":")) return bad("junk after ]");
    if (!after.empty()) port_text = after.substr(1);
  } else {
    const size_t c = authority.rfind(':');
    url.host = std::string(authority.substr(0, c));
    if (c != std::string_view::npos) port_text = authority.substr(c + 1);
  }
  if (url.host.empty()) return bad("no host");
  for (char c : url.host) {
    if (std::isspace(static_cast<unsigned char>(c)) || c == '/' || c == '\\') {
      return bad("bad host");
    }
  }
  url.port = url.scheme == "https" ? 443 : 80;
  if (!port_text.empty()) {
    unsigned value = 0;
    for (char c : port_text) {
      if (!std::isdigit(static_cast<unsigned char>(c)) || value > 65535) return bad("bad port");
      value = value * 10 + static_cast<unsigned>(c - '0');
    }
    if (value == 0 || value > 65535) return bad("bad port");
    url.port = static_cast<uint16_t>(value);
  }
  for (char c : url.target) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) return bad("bad character in path");
  }
  return url;
}

Result<Url> resolve_url(const Url& base, std::string_view location) {
  if (location.find("://") != std::string_view::npos) return parse_url(location);
  if (location.starts_with("//")) return parse_url(base.scheme + ":" + std::string(location));
  Url url = base;
  if (location.starts_with("/")) {
    url.target = std::string(location);
  } else {
    std::string dir = base.target.substr(0, base.target.find('?'));
    dir = dir.substr(0, dir.rfind('/') + 1);
    url.target = dir + std::string(location);
  }
  return parse_url(url.to_string());
}

Result<ClientResponse> fetch(const ClientRequest& request) {
  ASSIGN_OR_RETURN(Url url, parse_url(request.url));
  const Clock::time_point deadline = Clock::now() + request.timeout;
  std::string method = request.method;
  std::string body = request.body;
  auto headers = request.headers;
  std::unique_ptr<net::ssl::context> tls;
  for (int hop = 0;; ++hop) {
    if (url.scheme == "https" && tls == nullptr) {
      ASSIGN_OR_RETURN(tls, make_tls_context(request.tls));
    }
    const Hop h{request,
                url,
                method,
                headers,
                body,
                deadline,
                request.max_redirects > 0,
                url.scheme == "https" ? tls.get() : nullptr};
    ASSIGN_OR_RETURN(ClientResponse resp, run_hop(h));
    if (!h.stop_at_redirect || !is_redirect(resp.status) || !resp.header("location")) return resp;
    if (hop >= request.max_redirects) {
      return error(Code::kServiceUnavailable, method + " " + request.url + ": stopped after " +
                                                  std::to_string(hop) + " redirects");
    }
    Result<Url> next = resolve_url(url, *resp.header("location"));
    if (!next.is_ok()) {
      return error(Code::kInvalid, method + " " + url.to_string() +
                                       ": redirect to a bad URL: " + next.status().message());
    }
    // Credentials are for the origin that asked for them: registries redirect blob reads to
    // storage with a signed URL, where an Authorization header would be refused or leaked.
    if (next->scheme != url.scheme || next->host != url.host || next->port != url.port) {
      std::erase_if(headers, [](const auto& h) { return lower(h.first) == "authorization"; });
    }
    if (resp.status == 303 || ((resp.status == 301 || resp.status == 302) && method == "POST")) {
      method = "GET";
      body.clear();
    }
    url = std::move(next).value();
  }
}

}  // namespace k3c::http
