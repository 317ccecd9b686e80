// The client side of TLS shared by the one-shot client (http_client.cpp) and kept-alive
// connections (http_connection.cpp): read limits, the context built from ClientTls (trust
// anchors, client certificate) and the per-connection server name checks. Internal: it names
// Asio types.
#pragma once

#include <openssl/ssl.h>

#include <boost/asio/ssl.hpp>
#include <memory>
#include <string>

#include "core/status.h"
#include "http/http_client.h"

namespace k3c::http::internal {

// What both clients read with: the largest response header they accept, and the size of the
// pieces a body is read in.
inline constexpr size_t kHeaderLimit = 64 << 10;
inline constexpr size_t kReadChunk = 64 << 10;

Result<std::unique_ptr<boost::asio::ssl::context>> make_tls_context(const ClientTls& tls);

// SNI for names, and the certificate must name the host (a DNS SAN, or an IP SAN for
// addresses) when `verify` is set.
Status expect_host(SSL* ssl, const std::string& host, bool verify);

}  // namespace k3c::http::internal
