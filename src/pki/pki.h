// The cluster PKI, in k3s's shape: the CAs and certificates under <data-dir>/server/tls, the
// admin kubeconfig, the join token, and the TLS contexts and peer identities the API server
// and the in-tree HTTPS client use. File names, formats and lifetimes: doc/pki.md.
//
// Thread-safety: every function may be called from any thread; none keeps state between
// calls. ensure_server_pki and ensure_server_token own their files while they run: do not
// call them concurrently on the same directory (the server calls them once, at start).
// Ownership: results are plain values (PEM text, paths) or owning smart pointers.
#pragma once

#include <openssl/types.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/status.h"

namespace k3c::pki {

struct PkiOptions {
  std::string tls_dir;            // <data-dir>/server/tls; created with mode 0700
  std::vector<std::string> sans;  // --tls-san values, node IP, ...: IPs or DNS names
  std::string cluster_domain = "cluster.local";
  std::string first_service_ip = "10.43.0.1";  // the `kubernetes` Service's ClusterIP
  std::string hostname;                        // a SAN too; "" = gethostname()
  const Clock* clock = nullptr;                // validity periods; nullptr = the system clock
};

// A certificate and its private key as PEM text, and the files they are kept in ("" for a
// pair that lives only in memory, such as one from issue_client_cert).
struct CertKey {
  std::string cert_pem;
  std::string key_pem;
  std::string cert_path;
  std::string key_path;
};

struct ServerPki {
  CertKey server_ca;  // server-ca.crt/.key: signs serving certs; what clients trust
  CertKey client_ca;  // client-ca.crt/.key: signs client certs; what the server trusts
  CertKey serving;    // serving-kube-apiserver.crt/.key, signed by server_ca
  CertKey admin;      // client-admin.crt/.key: system:admin in system:masters
  // What this call created or re-issued and why, one line each, for the caller's log.
  std::vector<std::string> actions;
};

// Creates the PKI on first start and reuses it afterwards. Leaf certificates (serving,
// admin) are re-issued from the same CA when they expire within 90 days, no longer match
// their CA or subject, or (serving) do not cover every requested SAN. A CA is never
// replaced: an unreadable or mismatched file is an error naming it.
Result<ServerPki> ensure_server_pki(const PkiOptions& options);

struct ClientCertSpec {
  std::string common_name;                 // the Kubernetes user, e.g. system:node:web-1
  std::vector<std::string> organizations;  // its groups, e.g. {"system:nodes"}
};

// A new key (ECDSA P-256) and a one-year client certificate for it, signed by `client_ca`
// (cert_pem and key_pem are used; paths are ignored). The result has no paths.
Result<CertKey> issue_client_cert(const CertKey& client_ca, const ClientCertSpec& spec,
                                  const Clock* clock = nullptr);

// A new key and a one-year serving certificate (EKU serverAuth) for `sans` (IP addresses or
// DNS names), signed by `server_ca`; the kubelet's for its port 10250. No paths.
Result<CertKey> issue_serving_cert(const CertKey& server_ca, const std::string& common_name,
                                   const std::vector<std::string>& sans,
                                   const Clock* clock = nullptr);

// Writes a k3s-shaped kubeconfig (cluster, user and context all named "default") to `path`
// atomically, creating its parent directory, and leaves the file with `mode`.
Status write_kubeconfig(const std::string& path, unsigned mode, const std::string& server_url,
                        const std::string& ca_pem, const std::string& client_cert_pem,
                        const std::string& client_key_pem);

// The join token, k3s format: K10<sha256 hex of the CA PEM>::<username>:<password>.
struct ParsedToken {
  std::string ca_hash;   // 64 hex digits; "" for a bare password
  std::string username;  // "" for a bare password
  std::string password;
};

// Parses a full K10 token or a bare password. Bootstrap tokens (abcdef.0123456789abcdef)
// are answered kNotImplemented; anything else malformed kInvalid.
Result<ParsedToken> parse_token(std::string_view token);
// The CA hash of a token: SHA-256 of the CA certificate's PEM bytes as stored, in hex.
Result<std::string> ca_hash(std::string_view ca_pem);
Result<std::string> format_token(std::string_view ca_pem, std::string_view username,
                                 std::string_view password);
// Returns the token in `path` (<data-dir>/server/token), creating it on first start as
// K10<hash>::server:<32 random hex digits>, mode 0600. An existing token keeps its
// credentials; its CA hash is rewritten if it no longer matches `ca_pem`.
Result<std::string> ensure_server_token(const std::string& path, const std::string& ca_pem);

// The join protocol's pieces (doc/pki.md "Joining an agent"), shared by the server's
// supervisor endpoints and `k3c agent`.
// kOk when `ca_pem` (what /cacerts answered) hashes to the token's CA hash; kForbidden naming
// both hashes otherwise. A token without a hash (a bare password) trusts any CA: k3s does the
// same, and logs it.
Status verify_ca_hash(const ParsedToken& token, std::string_view ca_pem);
// "Basic base64(user:password)", the Authorization header an agent sends; a token without a
// username sends "node", as k3s's agents do.
std::string basic_authorization(const ParsedToken& token);
// kOk when `authorization` (the header's value) is Basic with the password of `server_token`
// (compared in constant time; any username); kUnauthorized otherwise.
Status check_basic_authorization(std::string_view authorization, const ParsedToken& server_token);
// What a CertificateSigningRequest's spec.request must be: a PEM "CERTIFICATE REQUEST"
// (PKCS#10) whose signature verifies with its own key. kInvalid in the words of Go's pem and
// x509 packages ("PEM block type must be CERTIFICATE REQUEST", ...), as upstream quotes them.
Status check_certificate_request(std::string_view pem);
// A new key (ECDSA P-256) and a PKCS#10 request for it naming `subject` (CN, O) and `sans`
// (IP addresses or DNS names): what a kubelet or a user sends as a CertificateSigningRequest.
struct NewRequest {
  std::string csr_pem;
  std::string key_pem;
};
Result<NewRequest> new_certificate_request(const ClientCertSpec& subject,
                                           const std::vector<std::string>& sans = {});
// What a request asks for, for a signer's checks (see read_certificate_request).
struct CertificateRequestInfo {
  std::string common_name;
  std::vector<std::string> organizations;
  size_t dns_names = 0, ip_addresses = 0, email_addresses = 0, uris = 0;  // subjectAltNames
};
// The request in `pem` (checked as check_certificate_request does).
Result<CertificateRequestInfo> read_certificate_request(std::string_view pem);
// The key usage names Kubernetes knows (a CertificateSigningRequest's spec.usages), sorted.
const std::vector<std::string>& key_usage_names();
// How a request is signed: Kubernetes key usage names ("client auth", "digital signature",
// ...), the lifetime, and the clock (null: the system's).
struct CsrSigningPolicy {
  std::vector<std::string> usages;
  std::chrono::seconds ttl{365 * 24 * 3600};
  const Clock* clock = nullptr;
};
// A certificate for the request in `csr_pem`, signed by `ca`, as upstream's CSR signer makes
// it: the request's subject, key and subjectAltNames; the usages as keyUsage (critical) and
// extKeyUsage; CA:FALSE; backdated 5 minutes (the end too, unless it lives under 8 hours);
// never past the CA's own end. PEM text. kInvalid for a bad request or an unknown usage.
Result<std::string> sign_certificate_request(const CertKey& ca, std::string_view csr_pem,
                                             const CsrSigningPolicy& policy);
// What its status.certificate may hold: nothing, or one or more PEM "CERTIFICATE" blocks
// without headers that parse. kInvalid in upstream's words otherwise.
Status check_certificate_chain(std::string_view pem);
// A certificate and its key in one PEM text (what /v1-k3c/*-kubelet.crt answer) split apart;
// kInvalid when either is missing or they do not belong together.
Result<CertKey> split_cert_and_key(std::string_view pem);
// Hex SHA-256 of any bytes (node passwords are kept as this), and n random bytes as hex.
Result<std::string> sha256_hex(std::string_view bytes);
Result<std::string> random_hex(size_t bytes);
// Writes `pem` to `path` atomically with `mode` from the first byte on (for keys: 0600),
// creating the parent directory (0700).
Status write_pem_file(const std::string& path, std::string_view pem, unsigned mode);

// Who a client certificate says its holder is, as Kubernetes reads it.
struct Identity {
  std::string user;                 // subject CN
  std::vector<std::string> groups;  // subject O entries, in order
};

// kUnauthorized when the certificate has no CN (Kubernetes ignores such certificates).
Result<Identity> identity_from_certificate(const X509* cert);
// The identity of the peer of a finished server-side handshake: nullopt when the client
// sent no certificate, kUnauthorized when its certificate did not verify or has no CN.
Result<std::optional<Identity>> peer_identity(const SSL* ssl);

// The service-account signing keys, in k3s's files under <tls_dir>: service.current.key
// (the RSA key new tokens are signed with) and service.key (every key whose tokens are
// still accepted; private or public keys, PEM, one after another). Both are created once
// (RSA 2048, PKCS#1 PEM, mode 0600) and reused; a service.key left by an older k3s-style
// layout without service.current.key has its first key promoted to the current one.
struct ServiceAccountKeys {
  std::string signing_key_pem;
  std::vector<std::string> verify_key_pems;  // the current key's PEM is always among them
};
Result<ServiceAccountKeys> ensure_service_account_keys(const std::string& tls_dir);

// JSON Web Tokens in compact form, signed RS256 as Kubernetes signs service-account
// tokens, with the "kid" header upstream derives from the public key (base64url of the
// SHA-256 of its DER SubjectPublicKeyInfo). Immutable after creation; any thread.
class JwtSigner {
 public:
  static Result<JwtSigner> from_pem(std::string_view private_key_pem);
  // header.payload.signature for the claims (a JSON object's text, used as given).
  Result<std::string> sign(std::string_view claims_json) const;
  const std::string& key_id() const { return key_id_; }

 private:
  std::shared_ptr<EVP_PKEY> key_;
  std::string key_id_;
};

class JwtVerifier {
 public:
  // Each PEM holds a private or public RSA key; kInvalid when one does not parse.
  static Result<JwtVerifier> from_pems(const std::vector<std::string>& key_pems);
  // The claims' JSON text when the token is well formed, its header names alg RS256 (no
  // other algorithm, "none" least of all) and one of the keys verifies its signature;
  // kUnauthorized otherwise. Claims (expiry, issuer, audience) are the caller's to check.
  Result<std::string> verify(std::string_view token) const;

 private:
  struct Key {
    std::shared_ptr<EVP_PKEY> key;
    std::string id;
  };
  std::vector<Key> keys_;
};

// base64url without padding (RFC 7515 section 2), and its inverse (nullopt when malformed).
std::string base64url_encode(std::string_view bytes);
std::optional<std::string> base64url_decode(std::string_view text);

struct SslContextDeleter {
  void operator()(SSL_CTX* ctx) const;
};
using SslContextPtr = std::unique_ptr<SSL_CTX, SslContextDeleter>;

// The API server's context: TLS 1.2 or newer, the serving cert and key, client certificates
// verified against the client CA when presented (not required: other clients use tokens),
// ALPN http/1.1 only.
Result<SslContextPtr> make_server_context(const ServerPki& pki);
// A client context that trusts only `ca_pem` and presents `cert_pem`/`key_pem` (both ""
// for none). Name checking is per connection: call expect_server_name on each SSL.
Result<SslContextPtr> make_client_context(const std::string& ca_pem, const std::string& cert_pem,
                                          const std::string& key_pem);
// Makes the handshake on `ssl` (a client) fail unless the server's certificate names `host`
// (an IP address or DNS name); sends `host` as SNI when it is a DNS name.
Status expect_server_name(SSL* ssl, const std::string& host);

}  // namespace k3c::pki
