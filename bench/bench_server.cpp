// The k3c server under benchmark (see bench_server.h).
#include "bench_server.h"

#include <yaml-cpp/yaml.h>

#include <thread>

#include "bench_report.h"
#include "core/base64.h"
#include "integration/server_sandbox.h"

namespace k3c::bench {
namespace {

double ms_since(SteadyClock::time_point start) {
  return std::chrono::duration<double, std::milli>(SteadyClock::now() - start).count();
}

Result<std::string> decoded_field(const YAML::Node& node, const char* name) {
  auto pem = base64_decode(node[name].as<std::string>(""));
  if (!pem || pem->empty()) return error(Code::kInvalid, std::string("kubeconfig: no ") + name);
  return *pem;
}

}  // namespace

Result<KubeconfigCredentials> read_kubeconfig(const std::string& path) {
  // yaml-cpp throws on unreadable or malformed input and on type mismatches.
  try {
    YAML::Node root = YAML::LoadFile(path);
    KubeconfigCredentials out;
    ASSIGN_OR_RETURN(out.ca_pem,
                     decoded_field(root["clusters"][0]["cluster"], "certificate-authority-data"));
    const YAML::Node user = root["users"][0]["user"];
    ASSIGN_OR_RETURN(out.cert_pem, decoded_field(user, "client-certificate-data"));
    ASSIGN_OR_RETURN(out.key_pem, decoded_field(user, "client-key-data"));
    return out;
  } catch (const YAML::Exception& e) {
    return error(Code::kInvalid, "kubeconfig " + path + ": " + e.what());
  }
}

Result<std::unique_ptr<BenchServer>> BenchServer::start(const std::string& k3c_binary,
                                                        std::chrono::seconds timeout) {
  std::unique_ptr<BenchServer> server(new BenchServer());
  server->box_ = std::make_unique<Sandbox>();
  RETURN_IF_ERROR(server->spawn(k3c_binary));
  Status ready = server->wait_ready(timeout);
  if (!ready.is_ok()) {
    std::string how = server->stop();
    return error(ready.code(), ready.message() + " (server " + how + "; its stderr ends: " +
                                   tail_of_file(server->box_->path("server.err"), 600) + ")");
  }
  return server;
}

Status BenchServer::spawn(const std::string& k3c_binary) {
  std::vector<std::string> argv = box_->server_args({"--disable-agent"});
  argv[0] = k3c_binary;
  // The clock starts just before the exec: this is what a user waits for.
  return process_.spawn(argv, box_->env(), box_->path("server.out"), box_->path("server.err"));
}

std::string BenchServer::tls_dir() const { return box_->data_dir() + "/server/tls"; }

std::string BenchServer::scratch(const std::string& name) const { return box_->path(name); }

Result<pki::SslContextPtr> BenchServer::admin_tls() const {
  ASSIGN_OR_RETURN(KubeconfigCredentials creds, read_kubeconfig(box_->kubeconfig()));
  return pki::make_client_context(creds.ca_pem, creds.cert_pem, creds.key_pem);
}

Status BenchServer::wait_ready(std::chrono::seconds timeout) {
  const auto deadline = process_.spawned_at() + timeout;
  auto exited = [&] { return process_.exited(); };
  // The API server writes the kubeconfig once it listens.
  while (!exists(box_->kubeconfig())) {
    if (exited())
      return error(Code::kServiceUnavailable, "the server " + process_.ended() + " during start");
    if (SteadyClock::now() > deadline) return error(Code::kServiceUnavailable, "no kubeconfig");
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  kubeconfig_ms_ = ms_since(process_.spawned_at());
  ASSIGN_OR_RETURN(pki::SslContextPtr tls, admin_tls());
  client_ = std::make_unique<ApiClient>("127.0.0.1", box_->port(), std::move(tls));
  for (;;) {
    auto conn = client_->connect(std::chrono::seconds(2));
    if (conn.is_ok()) {
      auto answer = (*conn)->request("GET", "/api/v1/namespaces");
      if (answer.is_ok() && answer->status == 200) break;
    }
    if (exited())
      return error(Code::kServiceUnavailable, "the server " + process_.ended() + " during start");
    if (SteadyClock::now() > deadline) {
      return error(Code::kServiceUnavailable, "GET /api/v1/namespaces never answered 200");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  start_ms_ = ms_since(process_.spawned_at());
  return Status::ok();
}

BenchServer::~BenchServer() { stop(); }

}  // namespace k3c::bench
