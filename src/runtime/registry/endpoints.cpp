// Endpoint resolution (see endpoints.h).
#include "runtime/registry/endpoints.h"

#include <arpa/inet.h>

namespace k3c::runtime::registry {
namespace {

// The host of "host:port", "[v6]:port" or "host".
std::string host_only(std::string_view host_port) {
  if (host_port.starts_with("[")) {
    const size_t close = host_port.find(']');
    return std::string(host_port.substr(1, close == std::string_view::npos ? close : close - 1));
  }
  const size_t colon = host_port.find(':');
  if (colon != std::string_view::npos && host_port.find(':', colon + 1) != std::string_view::npos) {
    return std::string(host_port);  // a bare IPv6 address
  }
  return std::string(host_port.substr(0, colon));
}

HostConfig config_for(const RegistriesConfig& config, const std::string& host,
                      const std::string& registry) {
  for (const std::string& key : {host, registry, std::string("*")}) {
    if (auto it = config.configs.find(key); it != config.configs.end()) return it->second;
  }
  return {};
}

std::string rewritten(const Mirror& mirror, const std::string& path) {
  for (const Rewrite& r : mirror.rewrites) {
    if (r.regex.search(path)) return r.regex.replace_all(path, r.replacement);
  }
  return path;
}

// "https://host:port[/path]" (scheme optional: https) -> base URL and host:port. An empty
// path or "/" means the standard "/v2"; any other path is used as written (containerd's
// override_path), so a mirror can serve a registry under a prefix.
Result<Endpoint> parse_endpoint(const std::string& text) {
  std::string url = text.find("://") == std::string::npos ? "https://" + text : text;
  const size_t scheme_end = url.find("://");
  const std::string scheme = url.substr(0, scheme_end);
  if (scheme != "http" && scheme != "https") {
    return error(Code::kInvalid, "registry endpoint " + text + ": scheme must be http or https");
  }
  std::string rest = url.substr(scheme_end + 3);
  const size_t slash = rest.find('/');
  Endpoint e;
  e.host = rest.substr(0, slash);
  std::string path = slash == std::string::npos ? "" : rest.substr(slash);
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  if (path.empty() || path == "/") path = "/v2";
  if (e.host.empty() || e.host.find_first_of("?#@ ") != std::string::npos) {
    return error(Code::kInvalid, "registry endpoint " + text + ": bad host");
  }
  e.base = scheme + "://" + e.host + path;
  return e;
}

}  // namespace

bool is_loopback_host(std::string_view host_port) {
  const std::string host = host_only(host_port);
  if (host == "localhost") return true;
  in_addr v4;
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  return host == "::1";
}

Result<std::vector<Endpoint>> endpoints_for(const Reference& ref, const RegistriesConfig& config) {
  std::vector<Endpoint> out;
  auto mirror = config.mirrors.find(ref.domain);
  if (mirror == config.mirrors.end()) mirror = config.mirrors.find("*");
  const std::string default_host = ref.domain == "docker.io" ? "registry-1.docker.io" : ref.domain;
  const std::string default_base =
      (is_loopback_host(ref.domain) ? "http://" : "https://") + default_host + "/v2";
  if (mirror != config.mirrors.end()) {
    for (const std::string& text : mirror->second.endpoints) {
      ASSIGN_OR_RETURN(Endpoint e, parse_endpoint(text));
      if (e.base == default_base) continue;  // the default comes last, unrewritten
      e.path = rewritten(mirror->second, ref.path);
      e.config = config_for(config, e.host, e.host);  // never the registry's credentials
      out.push_back(std::move(e));
    }
  }
  Endpoint d;
  d.base = default_base;
  d.host = default_host;
  d.path = ref.path;
  d.is_default = true;
  d.config = config_for(config, default_host, ref.domain);
  out.push_back(std::move(d));
  return out;
}

}  // namespace k3c::runtime::registry
