// Probe targets for kubelet unit tests: "host:port" answers as the test sets it (tcp: open
// or refused; http: a status code; grpc: the serving status, 1 SERVING, 2 NOT_SERVING).
// Unknown targets refuse.
#pragma once

#include <map>
#include <mutex>
#include <string>

#include "roles/kubelet/pods/grpc_health.h"
#include "roles/kubelet/pods/probes.h"

namespace k3c::kubelet::testing {

class FakeProbeNetwork final : public ProbeNetwork {
 public:
  // 0 = connection refused; else the HTTP status (any non-zero means tcp connects).
  void set(const std::string& host, int port, int status) {
    std::lock_guard lock(mu_);
    targets_[host + ":" + std::to_string(port)] = status;
  }
  ProbeOutcome tcp(const ProbeTarget& target, int port, std::chrono::milliseconds) override {
    const std::string& host = target.host;
    if (status(host, port) != 0) return {true, ""};
    return {false,
            "dial tcp " + host + ":" + std::to_string(port) + ": connect: connection refused"};
  }
  ProbeOutcome http_get(const std::string&, const ProbeTarget& target, int port,
                        const std::string& path, const nlohmann::json&,
                        std::chrono::milliseconds) override {
    const std::string& host = target.host;
    const int code = status(host, port);
    if (code == 0) {
      return {false, "Get \"http://" + host + ":" + std::to_string(port) + path +
                         "\": dial tcp: connect: connection refused"};
    }
    if (code >= 200 && code < 400) return {true, "", code};
    return {false, "HTTP probe failed with statuscode: " + std::to_string(code), code};
  }
  ProbeOutcome grpc(const ProbeTarget& target, int port, const std::string&,
                    std::chrono::milliseconds timeout) override {
    const std::string& host = target.host;
    grpc_health::CallResult call;
    call.connected = status(host, port) != 0;
    call.http_status = 200;
    call.grpc_status = 0;
    call.body = std::string("\0\0\0\0\2\x08", 6) + static_cast<char>(status(host, port));
    return grpc_health::verdict(call, host + ":" + std::to_string(port), timeout);
  }

 private:
  int status(const std::string& host, int port) {
    std::lock_guard lock(mu_);
    auto it = targets_.find(host + ":" + std::to_string(port));
    return it == targets_.end() ? 0 : it->second;
  }
  std::mutex mu_;
  std::map<std::string, int> targets_;
};

}  // namespace k3c::kubelet::testing
