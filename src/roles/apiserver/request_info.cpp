// API path parsing (see request_info.h).
#include "roles/apiserver/request_info.h"

#include <vector>

namespace k3c::apiserver {
namespace {

std::vector<std::string_view> split_path(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start < path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > start) parts.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

std::string verb_for(const http::Request& r, bool has_name, bool watch) {
  const std::string& m = r.method;
  if (m == "GET" || m == "HEAD") {
    if (watch) return "watch";
    return has_name ? "get" : "list";
  }
  if (m == "POST") return "create";
  if (m == "PUT") return "update";
  if (m == "PATCH") return "patch";
  if (m == "DELETE") return has_name ? "delete" : "deletecollection";
  return "";
}

}  // namespace

std::optional<RequestInfo> parse_request_info(const http::Request& request) {
  auto parts = split_path(request.path);
  if (parts.empty() || (parts[0] != "api" && parts[0] != "apis")) return std::nullopt;
  RequestInfo info;
  info.api_prefix = std::string(parts[0]);
  size_t i = 1;
  if (info.api_prefix == "apis") {
    if (parts.size() < 3) {
      info.verb = "get";
      if (parts.size() == 2) info.group = std::string(parts[1]);
      return info;  // /apis or /apis/<group>: discovery
    }
    info.group = std::string(parts[1]);
    i = 2;
  } else if (parts.size() < 2) {
    info.verb = "get";
    return info;  // /api
  }
  info.version = std::string(parts[i++]);
  if (i >= parts.size()) {
    info.verb = "get";
    return info;  // /api/v1, /apis/apps/v1: discovery
  }
  info.is_resource_request = true;
  bool watch = false;
  // The deprecated /watch/ path form.
  if (parts[i] == "watch") {
    watch = true;
    ++i;
  }
  if (auto w = request.param("watch"); w && (*w == "true" || *w == "1")) watch = true;
  std::vector<std::string_view> rest(parts.begin() + static_cast<long>(i), parts.end());
  if (!rest.empty() && rest[0] == "namespaces") {
    if (rest.size() > 1) {
      info.namespace_ = std::string(rest[1]);
      // /namespaces/<name>/status and /finalize address the namespace itself.
      if (rest.size() > 2 && rest[2] != "status" && rest[2] != "finalize") {
        rest.erase(rest.begin(), rest.begin() + 2);
      }
    }
  }
  if (rest.empty()) {
    info.is_resource_request = false;
    return info;
  }
  info.resource = std::string(rest[0]);
  if (rest.size() > 1) info.name = std::string(rest[1]);
  if (rest.size() > 2) info.subresource = std::string(rest[2]);
  if (info.resource == "namespaces") {
    // For the namespace itself, its name is the path's name, and it has no namespace.
    if (info.name.empty() && !info.namespace_.empty()) info.name = info.namespace_;
    info.namespace_.clear();
  }
  info.verb = verb_for(request, !info.name.empty(), watch);
  return info;
}

}  // namespace k3c::apiserver
