// Loading, checking and (re)creating the certificate/key pairs of a TLS directory.
#include "pki/internal/tls_dir.h"

#include "pki/internal/files.h"
#include "pki/internal/pem.h"

namespace k3c::pki::internal {
namespace {

constexpr unsigned kKeyMode = 0600;
constexpr unsigned kCertMode = 0644;
// A leaf is renewed when it has less than this left, as k3s does at start.
constexpr std::time_t kRenewBefore = 90 * 24 * 3600;

}  // namespace

std::string TlsDir::io_path(const std::string& path) const {
  return staging_.empty() ? path : staging_ + path.substr(dir_.size());
}

Result<Pair> TlsDir::load(std::string_view name) const {
  Pair pair;
  pair.pem.cert_path = dir_ + "/" + std::string(name) + ".crt";
  pair.pem.key_path = dir_ + "/" + std::string(name) + ".key";
  ASSIGN_OR_RETURN(std::optional<std::string> cert_text,
                   read_file_if_exists(io_path(pair.pem.cert_path)));
  ASSIGN_OR_RETURN(std::optional<std::string> key_text,
                   read_file_if_exists(io_path(pair.pem.key_path)));
  if (cert_text) {
    ASSIGN_OR_RETURN(pair.cert, parse_cert_pem(*cert_text, pair.pem.cert_path));
    pair.pem.cert_pem = std::move(*cert_text);
  }
  if (key_text) {
    ASSIGN_OR_RETURN(pair.key, parse_key_pem(*key_text, pair.pem.key_path));
    pair.pem.key_pem = std::move(*key_text);
  }
  if (pair.cert && pair.key && !key_matches(pair.cert.get(), pair.key.get())) {
    return error(Code::kCorrupt, pair.pem.cert_path + " does not match its key " +
                                     pair.pem.key_path + " (the public keys differ)");
  }
  return pair;
}

Result<Pair> TlsDir::with_key(Pair pair) {
  if (pair.key) return pair;
  ASSIGN_OR_RETURN(pair.key, generate_key());
  ASSIGN_OR_RETURN(pair.pem.key_pem, key_to_pem(pair.key.get()));
  RETURN_IF_ERROR(
      write_file_atomic(io_path(pair.pem.key_path), pair.pem.key_pem, kKeyMode, durability()));
  actions_.push_back("created " + pair.pem.key_path);
  return pair;
}

Result<Pair> TlsDir::with_cert(Pair pair, X509Ptr cert, std::string action) {
  ASSIGN_OR_RETURN(pair.pem.cert_pem, cert_to_pem(cert.get()));
  RETURN_IF_ERROR(
      write_file_atomic(io_path(pair.pem.cert_path), pair.pem.cert_pem, kCertMode, durability()));
  pair.cert = std::move(cert);
  actions_.push_back(std::move(action));
  return pair;
}

Result<Pair> TlsDir::ensure_ca(std::string_view name, std::string_view cn_prefix,
                               std::string_view first_leaf) {
  ASSIGN_OR_RETURN(Pair ca, load(name));
  if (ca.cert && !ca.key) {
    return error(Code::kNotFound,
                 ca.pem.key_path + " is missing but " + ca.pem.cert_path +
                     " exists: refusing to make a new CA that existing clients do not trust; "
                     "restore the key, or remove both files to start a new cluster PKI");
  }
  if (ca.cert) {
    if (X509_check_ca(ca.cert.get()) == 0) {
      return error(Code::kCorrupt, ca.pem.cert_path + " is not a CA certificate");
    }
    if (expires_before(ca.cert.get(), now_)) {
      return error(Code::kNotImplemented, ca.pem.cert_path + " expired on " +
                                              not_after_text(ca.cert.get()) +
                                              "; replacing a CA is not implemented");
    }
    return ca;
  }
  if (ca.key) {
    // A key alone is what an interrupted creation leaves: keys are written before their
    // certificates and CAs before leaves (and a first start is all or nothing, see
    // server_pki.cpp). No client can trust a CA whose certificate was never written, so
    // finishing the job with that key is safe. Once a leaf exists the certificate existed
    // too, and clients may trust it: a new one would break them.
    std::string leaf = io_path(dir_ + "/" + std::string(first_leaf));
    ASSIGN_OR_RETURN(bool leaf_crt, file_exists(leaf + ".crt"));
    ASSIGN_OR_RETURN(bool leaf_key, file_exists(leaf + ".key"));
    if (leaf_crt || leaf_key) {
      return error(Code::kNotFound,
                   ca.pem.cert_path +
                       " is missing but its key and the certificates it signed exist: refusing "
                       "to make a new CA that existing clients do not trust; restore the "
                       "certificate, or remove the directory to start a new cluster PKI");
    }
  }
  ASSIGN_OR_RETURN(ca, with_key(std::move(ca)));
  Subject subject{std::string(cn_prefix) + "@" + std::to_string(now_), {}};
  ASSIGN_OR_RETURN(X509Ptr cert, make_ca_cert(subject, ca.key.get(), now_));
  std::string action = "created " + ca.pem.cert_path;
  return with_cert(std::move(ca), std::move(cert), std::move(action));
}

std::string TlsDir::reissue_reason(const Pair& leaf, const Pair& ca,
                                   const LeafRequest& request) const {
  if (!leaf.key) return "its key " + leaf.pem.key_path + " was missing";
  if (!issued_by(leaf.cert.get(), ca.cert.get())) return "not signed by " + ca.pem.cert_path;
  if (expires_before(leaf.cert.get(), now_ + kRenewBefore)) {
    return "expires " + not_after_text(leaf.cert.get());
  }
  if (subject_of(leaf.cert.get()) != request.subject) return "its subject changed";
  if (request.kind == CertKind::kServing) {
    std::set<std::string> have = san_keys_of(leaf.cert.get());
    for (const San& san : request.sans) {
      if (!have.contains(san.key())) return "it does not cover " + san.text;
    }
  }
  return "";
}

Result<Pair> TlsDir::ensure_leaf(std::string_view name, const Pair& ca,
                                 const LeafRequest& request) {
  ASSIGN_OR_RETURN(Pair leaf, load(name));
  std::string action = "created " + leaf.pem.cert_path;
  if (leaf.cert) {
    std::string reason = reissue_reason(leaf, ca, request);
    if (reason.empty()) return leaf;
    action = "re-issued " + leaf.pem.cert_path + ": " + reason;
  }
  ASSIGN_OR_RETURN(leaf, with_key(std::move(leaf)));
  ASSIGN_OR_RETURN(X509Ptr cert, make_leaf_cert(request, leaf.key.get(),
                                                Signer{ca.cert.get(), ca.key.get()}, now_));
  return with_cert(std::move(leaf), std::move(cert), std::move(action));
}

}  // namespace k3c::pki::internal
