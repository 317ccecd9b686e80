// Joining a server (see join.h).
#include "cli/join.h"

#include <cctype>
#include <filesystem>

#include "core/text.h"
#include "http/http_client.h"
#include "runtime/files.h"

namespace k3c::cli {
namespace {

constexpr std::chrono::seconds kTimeout{15};

// The server's answer to GET `path`, or an error saying what it answered.
Result<std::string> get(const std::string& server, const std::string& path, http::ClientTls tls,
                        std::vector<std::pair<std::string, std::string>> headers = {}) {
  http::ClientRequest request;
  request.url = server + path;
  request.tls = std::move(tls);
  request.headers = std::move(headers);
  request.timeout = kTimeout;
  request.idle_timeout = kTimeout;
  request.max_redirects = 0;
  request.body_limit = 1 << 20;
  ASSIGN_OR_RETURN(http::ClientResponse response, http::fetch(request));
  if (response.status == 200) return std::move(response.body);
  std::string said = response.body;
  while (!said.empty() && (said.back() == '\n' || said.back() == '\r')) said.pop_back();
  const std::string what = "GET " + request.url + ": the server answered " +
                           std::to_string(response.status) + ": " + said;
  switch (response.status) {
    case 401:
      return error(Code::kUnauthorized, what + " (is the token right?)");
    case 403:
      return error(Code::kForbidden, what);
    case 400:
      return error(Code::kInvalid, what);
    case 404:
      return error(Code::kNotFound, what + " (is it a k3c server?)");
    default:
      return error(Code::kServiceUnavailable, what);
  }
}

std::string trimmed(std::string s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

}  // namespace

Result<std::string> node_password(const std::string& agent_dir) {
  const std::string path = agent_dir + "/node-password";
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) {
    ASSIGN_OR_RETURN(std::string kept, runtime::read_file(path, 4096));
    if (!trimmed(kept).empty()) return trimmed(kept);
  }
  ASSIGN_OR_RETURN(std::string password, pki::random_hex(16));
  RETURN_IF_ERROR(pki::write_pem_file(path, password + "\n", 0600));
  return password;
}

Result<AgentCredentials> join_server(const JoinRequest& request) {
  ASSIGN_OR_RETURN(pki::ParsedToken token, pki::parse_token(request.token));
  ASSIGN_OR_RETURN(http::Url url, http::parse_url(request.server_url));
  if (url.scheme != "https")
    return error(Code::kInvalid, "--server " + request.server_url + ": expected https://HOST:PORT");
  const std::string server = url.scheme + "://" + url.authority();
  // Unverified on purpose: what comes back is trusted only if it hashes to the token's pin.
  http::ClientTls unverified;
  unverified.insecure_skip_verify = true;
  AgentCredentials out;
  ASSIGN_OR_RETURN(out.server_ca_pem, get(server, "/cacerts", unverified));
  RETURN_IF_ERROR(pki::verify_ca_hash(token, out.server_ca_pem));
  http::ClientTls pinned;
  pinned.ca_pem = out.server_ca_pem;
  ASSIGN_OR_RETURN(std::string password, node_password(request.agent_dir));
  std::vector<std::pair<std::string, std::string>> headers = {
      {"Authorization", pki::basic_authorization(token)},
      {"K3c-Node-Name", request.node_name},
      {"K3c-Node-Password", password}};
  if (!request.node_ips.empty()) headers.emplace_back("K3c-Node-IP", join(request.node_ips, ","));
  ASSIGN_OR_RETURN(std::string client_ca, get(server, "/v1-k3c/client-ca.crt", pinned, headers));
  ASSIGN_OR_RETURN(std::string client, get(server, "/v1-k3c/client-kubelet.crt", pinned, headers));
  ASSIGN_OR_RETURN(std::string serving,
                   get(server, "/v1-k3c/serving-kubelet.crt", pinned, headers));
  ASSIGN_OR_RETURN(out.client, pki::split_cert_and_key(client));
  ASSIGN_OR_RETURN(out.serving, pki::split_cert_and_key(serving));

  const std::string& dir = request.agent_dir;
  out.client_ca_file = dir + "/client-ca.crt";
  out.kubeconfig = dir + "/kubelet.kubeconfig";
  out.client.cert_path = dir + "/client-kubelet.crt";
  out.client.key_path = dir + "/client-kubelet.key";
  out.serving.cert_path = dir + "/serving-kubelet.crt";
  out.serving.key_path = dir + "/serving-kubelet.key";
  RETURN_IF_ERROR(pki::write_pem_file(dir + "/server-ca.crt", out.server_ca_pem, 0644));
  RETURN_IF_ERROR(pki::write_pem_file(out.client_ca_file, client_ca, 0644));
  for (const pki::CertKey* pair : {&out.client, &out.serving}) {
    RETURN_IF_ERROR(pki::write_pem_file(pair->cert_path, pair->cert_pem, 0644));
    RETURN_IF_ERROR(pki::write_pem_file(pair->key_path, pair->key_pem, 0600));
  }
  RETURN_IF_ERROR(pki::write_kubeconfig(out.kubeconfig, 0600, server, out.server_ca_pem,
                                        out.client.cert_pem, out.client.key_pem));
  return out;
}

}  // namespace k3c::cli
