// The HTTP client as the registry client's transport (see registry_transport.h).
#include "cli/registry_transport.h"

#include "http/http_client.h"

namespace k3c::cli {

Result<runtime::registry::TransportResponse> HttpClientTransport::send(
    const runtime::registry::TransportRequest& request) {
  http::ClientRequest req;
  req.method = request.method;
  req.url = request.url;
  req.headers = request.headers;
  req.body = request.body;
  req.tls.ca_file = request.tls.ca_file;
  req.tls.cert_file = request.tls.cert_file;
  req.tls.key_file = request.tls.key_file;
  req.tls.insecure_skip_verify = request.tls.insecure_skip_verify;
  req.timeout = request.timeout;
  req.idle_timeout = request.idle_timeout;
  req.body_limit = request.body_limit;
  req.sink = request.sink;
  ASSIGN_OR_RETURN(http::ClientResponse resp, http::fetch(req));
  return runtime::registry::TransportResponse{resp.status, std::move(resp.headers),
                                              std::move(resp.body)};
}

Result<std::shared_ptr<runtime::registry::Puller>> make_puller(
    const std::string& registries_path, runtime::registry::PullOptions options) {
  ASSIGN_OR_RETURN(runtime::registry::RegistriesConfig config,
                   runtime::registry::load_registries(registries_path));
  return std::make_shared<runtime::registry::Puller>(std::make_shared<HttpClientTransport>(),
                                                     std::move(config), std::move(options));
}

}  // namespace k3c::cli
