// ensure_server_pki: the server's CAs, serving certificate and admin certificate under
// <data-dir>/server/tls, with k3s's file names.
#include <unistd.h>

#include <chrono>
#include <climits>
#include <filesystem>

#include "pki/internal/files.h"
#include "pki/internal/tls_dir.h"
#include "pki/pki.h"

namespace k3c::pki {
namespace {

using internal::CertKind;
using internal::LeafRequest;
using internal::Pair;
using internal::San;

// k3s's file names (without .crt/.key) of the two leaves.
constexpr std::string_view kServingName = "serving-kube-apiserver";
constexpr std::string_view kAdminName = "client-admin";

Result<std::string> local_hostname() {
  char buf[HOST_NAME_MAX + 1] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return error(Code::kInternal, "gethostname failed");
  return std::string(buf);
}

// The serving certificate's names: loopback, the host, the --tls-san values, the in-cluster
// names of the `kubernetes` Service and its ClusterIP.
Result<std::vector<San>> serving_sans(const PkiOptions& options) {
  std::string host = options.hostname;
  if (host.empty()) {
    ASSIGN_OR_RETURN(host, local_hostname());
  }
  std::vector<std::string> names = {"127.0.0.1", "::1", "localhost", host};
  names.insert(names.end(), options.sans.begin(), options.sans.end());
  for (const char* name : {"kubernetes", "kubernetes.default", "kubernetes.default.svc"}) {
    names.push_back(name);
  }
  names.push_back("kubernetes.default.svc." + options.cluster_domain);
  ASSIGN_OR_RETURN(San service_ip, internal::parse_san(options.first_service_ip));
  if (service_ip.kind != San::Kind::kIp) {
    return error(Code::kInvalid,
                 "first service IP \"" + options.first_service_ip + "\" is not an IP address");
  }
  names.push_back(options.first_service_ip);
  return internal::parse_sans(names);
}

// Removes a staging directory unless it was committed (moved into place).
class StagingGuard {
 public:
  explicit StagingGuard(std::string path) : path_(std::move(path)) {}
  ~StagingGuard() {
    std::error_code ec;  // best effort: the next first start removes leftovers too
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  StagingGuard(const StagingGuard&) = delete;
  StagingGuard& operator=(const StagingGuard&) = delete;
  void committed() { path_.clear(); }

 private:
  std::string path_;
};

// The four pairs, in the order they are made: each CA before the leaves it signs.
Result<ServerPki> ensure_in(internal::TlsDir& dir, const LeafRequest& serving_request) {
  ASSIGN_OR_RETURN(Pair server_ca, dir.ensure_ca("server-ca", "k3c-server-ca", kServingName));
  ASSIGN_OR_RETURN(Pair client_ca, dir.ensure_ca("client-ca", "k3c-client-ca", kAdminName));
  ASSIGN_OR_RETURN(Pair serving, dir.ensure_leaf(kServingName, server_ca, serving_request));
  LeafRequest admin_request{CertKind::kClient, {"system:admin", {"system:masters"}}, {}};
  ASSIGN_OR_RETURN(Pair admin, dir.ensure_leaf(kAdminName, client_ca, admin_request));
  return ServerPki{std::move(server_ca.pem), std::move(client_ca.pem), std::move(serving.pem),
                   std::move(admin.pem), dir.actions()};
}

}  // namespace

Result<ServerPki> ensure_server_pki(const PkiOptions& options) {
  if (options.tls_dir.empty()) return error(Code::kInvalid, "no TLS directory given");
  const Clock& clock = options.clock ? *options.clock : SystemClock::instance();
  std::time_t now = std::chrono::system_clock::to_time_t(clock.wall_now());
  ASSIGN_OR_RETURN(std::vector<San> sans, serving_sans(options));
  LeafRequest serving{CertKind::kServing, {"kube-apiserver", {}}, std::move(sans)};

  ASSIGN_OR_RETURN(bool exists, internal::file_exists(options.tls_dir));
  if (exists) {
    RETURN_IF_ERROR(internal::make_dirs(options.tls_dir, 0700));  // checks it is a directory
    // An existing directory is tightened too: it holds the CA keys.
    RETURN_IF_ERROR(internal::set_mode(options.tls_dir, 0700));
    internal::TlsDir dir(options.tls_dir, now);
    return ensure_in(dir, serving);
  }
  // First start: build the whole directory aside and move it in with one rename, so a crash
  // leaves no half-made PKI behind (and the files are synced together, not one by one).
  RETURN_IF_ERROR(internal::make_dirs(internal::parent_dir(options.tls_dir), 0700));
  ASSIGN_OR_RETURN(std::string staging, internal::make_staging_dir(options.tls_dir));
  StagingGuard guard(staging);
  internal::TlsDir dir(options.tls_dir, now, staging);
  ASSIGN_OR_RETURN(ServerPki pki, ensure_in(dir, serving));
  RETURN_IF_ERROR(internal::commit_staging_dir(staging, options.tls_dir));
  guard.committed();
  return pki;
}

}  // namespace k3c::pki
