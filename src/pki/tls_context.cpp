// The TLS contexts of the API server and of the in-tree HTTPS client (OpenSSL SSL_CTX).
#include <arpa/inet.h>
#include <openssl/ssl.h>

#include "pki/internal/ossl.h"
#include "pki/internal/pem.h"
#include "pki/pki.h"

namespace k3c::pki {
namespace {

using internal::openssl_error;

// ALPN wire format: a length byte, then the protocol name.
constexpr unsigned char kAlpnHttp11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};

// The server's ALPN choice: http/1.1 when offered. A client that offers only other protocols
// (h2) gets the no_application_protocol alert, as RFC 7301 asks and Go servers answer.
int select_alpn(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in,
                unsigned int inlen, void*) {
  unsigned char* chosen = nullptr;
  if (SSL_select_next_proto(&chosen, outlen, kAlpnHttp11, sizeof kAlpnHttp11, in, inlen) !=
      OPENSSL_NPN_NEGOTIATED) {
    return SSL_TLSEXT_ERR_ALERT_FATAL;
  }
  *out = chosen;
  return SSL_TLSEXT_ERR_OK;
}

Result<SslContextPtr> new_context(const SSL_METHOD* method) {
  SslContextPtr ctx(SSL_CTX_new(method));
  if (!ctx || SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION) != 1) {
    return openssl_error(Code::kInternal, "creating a TLS context");
  }
  SSL_CTX_set_options(ctx.get(), SSL_OP_NO_RENEGOTIATION);
  // Idle connections (most watches, most of the time) give their 2 x 16 KiB+ record buffers
  // back instead of holding them: that was most of a watch connection's memory.
  SSL_CTX_set_mode(ctx.get(), SSL_MODE_RELEASE_BUFFERS);
  return ctx;
}

// Installs `cert_pem` and `key_pem` as the context's own certificate.
Status use_cert_and_key(SSL_CTX* ctx, const std::string& cert_pem, const std::string& key_pem,
                        std::string_view what) {
  ASSIGN_OR_RETURN(internal::X509Ptr cert, internal::parse_cert_pem(cert_pem, what));
  ASSIGN_OR_RETURN(internal::EvpPkeyPtr key, internal::parse_key_pem(key_pem, what));
  if (SSL_CTX_use_certificate(ctx, cert.get()) != 1 ||
      SSL_CTX_use_PrivateKey(ctx, key.get()) != 1 || SSL_CTX_check_private_key(ctx) != 1) {
    return openssl_error(Code::kInvalid, std::string(what) + ": certificate and key");
  }
  return Status::ok();
}

// Adds `ca_pem` to the certificates the context verifies peers against; returns the CA.
Result<internal::X509Ptr> trust_ca(SSL_CTX* ctx, const std::string& ca_pem, std::string_view what) {
  ASSIGN_OR_RETURN(internal::X509Ptr ca, internal::parse_cert_pem(ca_pem, what));
  if (X509_STORE_add_cert(SSL_CTX_get_cert_store(ctx), ca.get()) != 1) {
    return openssl_error(Code::kInternal, std::string(what) + ": adding to the trust store");
  }
  return ca;
}

}  // namespace

void SslContextDeleter::operator()(SSL_CTX* ctx) const { SSL_CTX_free(ctx); }

Result<SslContextPtr> make_server_context(const ServerPki& pki) {
  ASSIGN_OR_RETURN(SslContextPtr ctx, new_context(TLS_server_method()));
  RETURN_IF_ERROR(use_cert_and_key(ctx.get(), pki.serving.cert_pem, pki.serving.key_pem,
                                   "serving certificate"));
  ASSIGN_OR_RETURN(internal::X509Ptr client_ca,
                   trust_ca(ctx.get(), pki.client_ca.cert_pem, "client CA certificate"));
  // Name the client CA in the CertificateRequest so clients pick the certificate it signed.
  if (SSL_CTX_add_client_CA(ctx.get(), client_ca.get()) != 1) {
    return openssl_error(Code::kInternal, "client CA certificate: listing it for clients");
  }
  // Verify a certificate when one is presented, but let clients without one through: they
  // authenticate with tokens instead (Kubernetes' "request client cert, verify if given").
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
  SSL_CTX_set_alpn_select_cb(ctx.get(), select_alpn, nullptr);
  return ctx;
}

Result<SslContextPtr> make_client_context(const std::string& ca_pem, const std::string& cert_pem,
                                          const std::string& key_pem) {
  ASSIGN_OR_RETURN(SslContextPtr ctx, new_context(TLS_client_method()));
  ASSIGN_OR_RETURN(internal::X509Ptr ca, trust_ca(ctx.get(), ca_pem, "CA certificate"));
  if (!cert_pem.empty() || !key_pem.empty()) {
    RETURN_IF_ERROR(use_cert_and_key(ctx.get(), cert_pem, key_pem, "client certificate"));
  }
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
  if (SSL_CTX_set_alpn_protos(ctx.get(), kAlpnHttp11, sizeof kAlpnHttp11) != 0) {
    return openssl_error(Code::kInternal, "setting ALPN");  // 0 is success here
  }
  return ctx;
}

Status expect_server_name(SSL* ssl, const std::string& host) {
  unsigned char addr[16];
  bool is_ip =
      inet_pton(AF_INET, host.c_str(), addr) == 1 || inet_pton(AF_INET6, host.c_str(), addr) == 1;
  if (is_ip) {
    // No SNI for addresses (RFC 6066); match an IP SAN.
    if (X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host.c_str()) != 1) {
      return openssl_error(Code::kInvalid, "server address " + host);
    }
    return Status::ok();
  }
  if (SSL_set_tlsext_host_name(ssl, host.c_str()) != 1 || SSL_set1_host(ssl, host.c_str()) != 1) {
    return openssl_error(Code::kInvalid, "server name " + host);
  }
  return Status::ok();
}

}  // namespace k3c::pki
