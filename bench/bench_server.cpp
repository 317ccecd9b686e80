// The k3c server under benchmark (see bench_server.h).
#include "bench_server.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "bench_report.h"
#include "core/base64.h"
#include "integration/server_sandbox.h"

namespace k3c::bench {
namespace {

constexpr auto kStopGrace = std::chrono::seconds(10);

double ms_since(SteadyClock::time_point start) {
  return std::chrono::duration<double, std::milli>(SteadyClock::now() - start).count();
}

std::string tail_of_file(const std::string& path, size_t bytes) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  std::string all = text.str();
  return all.size() > bytes ? all.substr(all.size() - bytes) : all;
}

Result<std::string> decoded_field(const YAML::Node& node, const char* name) {
  auto pem = base64_decode(node[name].as<std::string>(""));
  if (!pem || pem->empty()) return error(Code::kInvalid, std::string("kubeconfig: no ") + name);
  return *pem;
}

// One line of /proc/<pid>/status, e.g. "VmRSS:", as its number (kB there).
int64_t status_field_kb(pid_t pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.compare(0, field.size(), field) == 0) return std::stoll(line.substr(field.size()));
  }
  return 0;
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
  std::vector<std::string> env_text;
  for (const auto& [name, value] : box_->env()) env_text.push_back(name + "=" + value);
  std::vector<char*> args, envp;
  for (std::string& a : argv) args.push_back(a.data());
  for (std::string& e : env_text) envp.push_back(e.data());
  args.push_back(nullptr);
  envp.push_back(nullptr);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, box_->path("server.out").c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&files, STDERR_FILENO, box_->path("server.err").c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  // The clock starts just before the exec: this is what a user waits for.
  const auto t0 = SteadyClock::now();
  const int rc = posix_spawn(&pid_, args[0], &files, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&files);
  if (rc != 0) {
    pid_ = -1;
    return error(Code::kInternal, "cannot start " + k3c_binary + ": " + strerror(rc));
  }
  spawned_at_ = t0;
  return Status::ok();
}

Status BenchServer::wait_ready(std::chrono::seconds timeout) {
  const auto deadline = spawned_at_ + timeout;
  auto exited = [&] {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) != pid_) return false;
    reaped_ = true;
    ended_ = WIFEXITED(status) ? format("exited %d", WEXITSTATUS(status))
                               : format("killed by signal %d", WTERMSIG(status));
    return true;
  };
  // The API server writes the kubeconfig once it listens.
  while (!exists(box_->kubeconfig())) {
    if (exited()) return error(Code::kServiceUnavailable, "the server " + ended_ + " during start");
    if (SteadyClock::now() > deadline) return error(Code::kServiceUnavailable, "no kubeconfig");
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  kubeconfig_ms_ = ms_since(spawned_at_);
  ASSIGN_OR_RETURN(KubeconfigCredentials creds, read_kubeconfig(box_->kubeconfig()));
  ASSIGN_OR_RETURN(pki::SslContextPtr tls,
                   pki::make_client_context(creds.ca_pem, creds.cert_pem, creds.key_pem));
  client_ = std::make_unique<ApiClient>("127.0.0.1", box_->port(), std::move(tls));
  for (;;) {
    auto conn = client_->connect(std::chrono::seconds(2));
    if (conn.is_ok()) {
      auto answer = (*conn)->request("GET", "/api/v1/namespaces");
      if (answer.is_ok() && answer->status == 200) break;
    }
    if (exited()) return error(Code::kServiceUnavailable, "the server " + ended_ + " during start");
    if (SteadyClock::now() > deadline) {
      return error(Code::kServiceUnavailable, "GET /api/v1/namespaces never answered 200");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  start_ms_ = ms_since(spawned_at_);
  return Status::ok();
}

BenchServer::~BenchServer() { stop(); }

int64_t BenchServer::rss_bytes() const { return status_field_kb(pid_, "VmRSS:") * 1024; }

double BenchServer::cpu_seconds() const {
  std::ifstream in("/proc/" + std::to_string(pid_) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Fields after the command name (which may hold spaces) start at the last ')'.
  size_t close = text.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(text.substr(close + 2));
  std::string skip;
  for (int i = 3; i < 14; ++i) fields >> skip;  // state .. cmajflt: fields 3 to 13
  double utime = 0, stime = 0;
  fields >> utime >> stime;
  return (utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

std::string BenchServer::stop() {
  if (pid_ <= 0 || reaped_) return ended_;
  kill(pid_, SIGTERM);
  const auto deadline = SteadyClock::now() + kStopGrace;
  int status = 0;
  bool killed = false;
  while (waitpid(pid_, &status, WNOHANG) != pid_) {
    if (!killed && SteadyClock::now() > deadline) {
      kill(pid_, SIGKILL);
      killed = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  reaped_ = true;
  ended_ = WIFEXITED(status) ? format("exited %d", WEXITSTATUS(status))
                             : format("killed by signal %d", WTERMSIG(status));
  if (killed) ended_ += " after ignoring SIGTERM for 10 s";
  return ended_;
}

}  // namespace k3c::bench
