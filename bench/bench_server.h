// The k3c server the API benchmark drives: the real binary started as a child process in a
// hermetic sandbox (temporary HOME, empty config file, fresh data dir, free loopback port),
// its admin kubeconfig read back into an ApiClient, and its memory and CPU read from /proc.
//
// Ownership: a BenchServer owns the child process and the sandbox directory; destroying it
// stops the server (SIGTERM, then SIGKILL after 10 s) and removes the directory.
// Thread-safety: stop() from the owner's thread; rss_bytes() and cpu_seconds() from any.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>

#include "api_client.h"
#include "bench_process.h"
#include "bench_report.h"
#include "core/status.h"

namespace k3c {
class Sandbox;  // test/integration/server_sandbox.h: the same sandbox the integration tests use
}

namespace k3c::bench {

class BenchServer {
 public:
  // Starts `k3c server --disable-agent` and waits (at most `timeout`) until GET
  // /api/v1/namespaces answers 200 over HTTPS with the admin certificate.
  static Result<std::unique_ptr<BenchServer>> start(const std::string& k3c_binary,
                                                    std::chrono::seconds timeout);
  ~BenchServer();
  BenchServer(const BenchServer&) = delete;
  BenchServer& operator=(const BenchServer&) = delete;

  // From just before the exec to the first 200 answer to GET /api/v1/namespaces.
  double start_ms() const { return start_ms_; }
  // From just before the exec to the kubeconfig file appearing.
  double kubeconfig_ms() const { return kubeconfig_ms_; }
  pid_t pid() const { return process_.pid(); }
  ApiClient& client() { return *client_; }
  // The server's PKI directory (<data-dir>/server/tls) and a client context trusting its CA
  // with the admin certificate (for another server that presents the same certificates).
  std::string tls_dir() const;
  Result<pki::SslContextPtr> admin_tls() const;
  // A path in the server's sandbox directory (removed with it).
  std::string scratch(const std::string& name) const;
  const BenchProcess& process() const { return process_; }

  // VmRSS of the server; 0 when it cannot be read.
  int64_t rss_bytes() const { return process_.rss_bytes(); }
  // User + system CPU time the server has used so far.
  double cpu_seconds() const { return process_.cpu_seconds(); }
  // SIGTERM, then SIGKILL when it has not exited after 10 s. Returns how it ended. Idempotent.
  std::string stop() { return process_.stop(); }

 private:
  BenchServer() = default;
  Status spawn(const std::string& k3c_binary);
  Status wait_ready(std::chrono::seconds timeout);

  std::unique_ptr<Sandbox> box_;  // its directory is removed when it is destroyed
  BenchProcess process_;          // stopped before box_ goes (declared after it)
  double start_ms_ = 0;
  double kubeconfig_ms_ = 0;
  std::unique_ptr<ApiClient> client_;
};

// The CA, client certificate and key of a kubeconfig written by k3c (base64 *-data fields).
struct KubeconfigCredentials {
  std::string ca_pem;
  std::string cert_pem;
  std::string key_pem;
};
Result<KubeconfigCredentials> read_kubeconfig(const std::string& path);

}  // namespace k3c::bench
