// A `k3c server` with its worker roles (kubelet, runtime) in mount, network and PID
// namespaces of its own (server_sandbox.h: Launch::kInNamespaces; root only), and the real
// kubectl of a given version pointed at it through nsenter.
#pragma once

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "kubectl_runner.h"
#include "run_command.h"

namespace k3c {

// A server with its kubelet, in namespaces of its own, and kubectl `version` pointed at it.
struct NodeSession {
  explicit NodeSession(const Sandbox& box, std::vector<std::string> server_args,
                       const std::string& version = "1.33")
      : server(box, std::move(server_args), Launch::kInNamespaces),
        kubectl{box, kubectl_dir() + "/kubectl." + version, {}, server.enter_prefix()} {
    REQUIRE_FALSE(kubectl_dir().empty());
    INFO(server.process.err());
    REQUIRE(server.ready == "READY=1");
  }
  RunningServer server;
  KubectlRunner kubectl;

  std::string ok(std::vector<std::string> args) const {
    auto r = kubectl(args);
    INFO("kubectl " << args.at(0) << ": " << r.err);
    CHECK(r.exit_code == 0);
    return r.out;
  }
  std::string jsonpath(const std::string& what, const std::string& path) const {
    return kubectl({"get", what, "-o", "jsonpath=" + path}).out;
  }
  nlohmann::json object(const std::vector<std::string>& what) const {
    std::vector<std::string> args = {"get"};
    args.insert(args.end(), what.begin(), what.end());
    args.insert(args.end(), {"-o", "json"});
    auto r = kubectl(args);
    if (r.exit_code != 0) return nlohmann::json();
    return nlohmann::json::parse(r.out, nullptr, false);
  }
  // curl in the server's network namespace against the kubelet's HTTPS port (10250), trusting
  // the cluster CA, with the client certificate `cert` of the server's PKI ("client-admin";
  // "" for none): the HTTP code and the body.
  std::pair<std::string, std::string> kubelet_get(const Sandbox& box, const std::string& path,
                                                  const std::string& cert) const {
    const std::string tls = box.data_dir() + "/server/tls/";
    std::vector<std::string> argv = server.enter_prefix();
    argv.insert(argv.end(), {"curl", "-s", "--max-time", "10", "--cacert", tls + "server-ca.crt",
                             "-w", "\n%{http_code}"});
    if (!cert.empty())
      argv.insert(argv.end(), {"--cert", tls + cert + ".crt", "--key", tls + cert + ".key"});
    argv.push_back("https://127.0.0.1:10250" + path);
    const std::string out = run_command(argv).out;
    const size_t newline = out.rfind('\n');
    if (newline == std::string::npos) return {out, ""};
    return {out.substr(newline + 1), out.substr(0, newline)};
  }
  bool node_ready(const std::string& node) const {
    return jsonpath("node/" + node, "{.status.conditions[?(@.type==\"Ready\")].status}") == "True";
  }
};

}  // namespace k3c
