// The join endpoints of the API port (see supervisor.h).
#include "roles/apiserver/supervisor.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/names.h"
#include "http/text_response.h"

namespace k3c::apiserver {
namespace {

constexpr std::string_view kPrefix = "/v1-k3c/";

http::Response pem_response(std::string pem) {
  http::Response r;
  r.body = std::move(pem);
  r.set_header("Content-Type", "application/x-pem-file");
  return r;
}

bool is_ip(const std::string& text) {
  unsigned char buffer[16];
  return inet_pton(AF_INET, text.c_str(), buffer) == 1 ||
         inet_pton(AF_INET6, text.c_str(), buffer) == 1;
}

Result<std::vector<std::string>> node_ips(const http::Request& request) {
  std::vector<std::string> ips;
  std::stringstream list(std::string(request.header("k3c-node-ip").value_or("")));
  for (std::string ip; std::getline(list, ip, ',');) {
    if (ip.empty()) continue;
    if (!is_ip(ip))
      return error(Code::kBadRequest, "K3c-Node-IP: \"" + ip + "\" is not an IP address");
    ips.push_back(ip);
  }
  return ips;
}

}  // namespace

Supervisor::Supervisor(pki::CertKey server_ca, pki::CertKey client_ca, pki::ParsedToken token,
                       std::string node_passwords_path)
    : server_ca_(std::move(server_ca)),
      client_ca_(std::move(client_ca)),
      token_(std::move(token)),
      node_passwords_path_(std::move(node_passwords_path)) {}

bool Supervisor::handles(std::string_view path) {
  return path == "/cacerts" || path.starts_with(kPrefix);
}

http::Response Supervisor::serve(const http::Request& request) {
  if (request.method != "GET") return http::text_response(405, "only GET is served here");
  if (request.path == "/cacerts") return pem_response(server_ca_.cert_pem);
  if (Status allowed =
          pki::check_basic_authorization(request.header("authorization").value_or(""), token_);
      !allowed.is_ok())
    return http::text_response(401, allowed.message());
  const std::string what = request.path.substr(kPrefix.size());
  if (what == "client-ca.crt") return pem_response(client_ca_.cert_pem);
  if (what != "client-kubelet.crt" && what != "serving-kubelet.crt")
    return http::text_response(404, "404 page not found");
  Result<std::string> issued = issue(request, what == "serving-kubelet.crt");
  if (!issued.is_ok())
    return http::text_response(http_code_of(issued.status().code()), issued.status().message());
  return pem_response(std::move(*issued));
}

Result<std::string> Supervisor::issue(const http::Request& request, bool serving) {
  const std::string node(request.header("k3c-node-name").value_or(""));
  if (node.empty()) return error(Code::kBadRequest, "the K3c-Node-Name header is required");
  if (Status valid = names::validate_dns1123_subdomain(node); !valid.is_ok())
    return error(Code::kBadRequest, "K3c-Node-Name \"" + node + "\": " + valid.message());
  const std::string password(request.header("k3c-node-password").value_or(""));
  if (password.empty()) return error(Code::kBadRequest, "the K3c-Node-Password header is required");
  ASSIGN_OR_RETURN(std::vector<std::string> ips, node_ips(request));
  RETURN_IF_ERROR(check_node_password(node, password));
  pki::CertKey pair;
  if (serving) {
    std::vector<std::string> sans = {node, "localhost", "127.0.0.1"};
    sans.insert(sans.end(), ips.begin(), ips.end());
    ASSIGN_OR_RETURN(pair, pki::issue_serving_cert(server_ca_, node, sans));
  } else {
    // Until RBAC and the node authorizer exist a node's identity carries system:masters, as
    // the in-process kubelet's does (kubelet_role.cpp).
    ASSIGN_OR_RETURN(
        pair, pki::issue_client_cert(client_ca_,
                                     {"system:node:" + node, {"system:nodes", "system:masters"}}));
  }
  return pair.cert_pem + pair.key_pem;
}

Status Supervisor::check_node_password(const std::string& node, const std::string& password) {
  ASSIGN_OR_RETURN(std::string hash, pki::sha256_hex(password));
  std::lock_guard lock(mu_);
  // One line per node: "<sha256 hex of its password> <node name>".
  std::ifstream in(node_passwords_path_);
  for (std::string kept, name; in >> kept >> name;) {
    if (name != node) continue;
    if (kept == hash) return Status::ok();
    return error(Code::kForbidden, "node \"" + node +
                                       "\" joined with another node password: a second machine "
                                       "cannot take over its name (remove it from " +
                                       node_passwords_path_ + " to let it rejoin)");
  }
  std::error_code ignored;
  std::filesystem::create_directories(std::filesystem::path(node_passwords_path_).parent_path(),
                                      ignored);
  // Mode 0600 from its creation, and synced before the certificate is handed out: a node
  // name answered for must stay bound to its password across a power loss.
  const std::string line = hash + " " + node + "\n";
  const int fd =
      ::open(node_passwords_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  const bool written = fd >= 0 &&
                       ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size()) &&
                       ::fsync(fd) == 0;
  const int err = errno;
  if (fd >= 0) ::close(fd);
  if (!written) {
    return error(Code::kInternal, "cannot record the node password in " + node_passwords_path_ +
                                      ": " + std::strerror(err));
  }
  return Status::ok();
}

}  // namespace k3c::apiserver
