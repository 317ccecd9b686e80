// The certificate/key pairs of one TLS directory (<name>.crt + <name>.key): loads and checks
// what exists, creates what is missing, re-issues leaves that no longer fit. The policy
// (never replace a CA, when a leaf is re-issued) is written out in doc/pki.md.
//
// On a first start the files are built in a staging directory that the caller moves into
// place afterwards; paths in results and messages are always the final ones.
//
// Not thread-safe; one TlsDir per ensure_server_pki call.
#pragma once

#include <ctime>
#include <string>
#include <string_view>
#include <vector>

#include "pki/internal/cert_issue.h"
#include "pki/internal/files.h"
#include "pki/internal/ossl.h"
#include "pki/pki.h"

namespace k3c::pki::internal {

// A certificate and its key. The ensure_ methods return complete pairs; while a pair is
// being loaded or made, a missing file is a null pointer and "" PEM.
struct Pair {
  X509Ptr cert;
  EvpPkeyPtr key;
  CertKey pem;  // the bytes as on disk, and the paths
};

class TlsDir {
 public:
  // `now` is the wall-clock time certificates are issued at and checked against. With a
  // `staging` directory, files are read and written there, unsynced (see
  // commit_staging_dir), but named as if in `dir`.
  TlsDir(std::string dir, std::time_t now, std::string staging = "")
      : dir_(std::move(dir)), staging_(std::move(staging)), now_(now) {}

  // The CA <name>.crt/.key, created (self-signed, CN "<cn_prefix>@<unix time>") when
  // neither file exists, or when only the key does and the first leaf it signs,
  // <first_leaf>.crt/.key, does not exist yet (an interrupted creation). Errors: an
  // unreadable or mismatched file, a certificate without its key, a key whose certificate
  // went missing after leaves were issued, a certificate that is not a CA or has expired.
  Result<Pair> ensure_ca(std::string_view name, std::string_view cn_prefix,
                         std::string_view first_leaf);

  // The leaf <name>.crt/.key signed by `ca`: reused while it fits `request`, otherwise
  // issued again (keeping an existing key).
  Result<Pair> ensure_leaf(std::string_view name, const Pair& ca, const LeafRequest& request);

  // What this TlsDir created or re-issued and why, one line each.
  const std::vector<std::string>& actions() const { return actions_; }

 private:
  // What exists on disk, checked: the cert matches the key when both exist.
  Result<Pair> load(std::string_view name) const;
  // Why the existing `leaf` (with a cert) must be issued again; "" when it may be reused.
  std::string reissue_reason(const Pair& leaf, const Pair& ca, const LeafRequest& request) const;
  // Where the file named `path` is read and written.
  std::string io_path(const std::string& path) const;
  Durability durability() const {
    return staging_.empty() ? Durability::kSynced : Durability::kUnsynced;
  }
  // `pair` with a key: its own, or a new one written to its key path.
  Result<Pair> with_key(Pair pair);
  // `pair` with `cert` written to its cert path; `action` goes to actions().
  Result<Pair> with_cert(Pair pair, X509Ptr cert, std::string action);

  std::string dir_;
  std::string staging_;  // "" = work in dir_ itself
  std::time_t now_;
  std::vector<std::string> actions_;
};

}  // namespace k3c::pki::internal
