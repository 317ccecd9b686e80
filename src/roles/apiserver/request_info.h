// What a request addresses: the API path parsed as upstream's RequestInfoFactory does.
//   /api/v1/namespaces/default/pods/web/log  -> core v1, ns default, pods, web, log, get
//   /apis/apps/v1/deployments?watch=true     -> apps v1, all namespaces, deployments, watch
//   /api/v1/namespaces/foo/status            -> namespaces "foo", subresource status
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "http/http.h"

namespace k3c::apiserver {

struct RequestInfo {
  bool is_resource_request = false;
  std::string api_prefix;  // "api" or "apis"
  std::string group;       // "" for core
  std::string version;
  std::string namespace_;  // "" when not namespaced or across all namespaces
  std::string resource;    // plural
  std::string name;
  std::string subresource;
  // get, list, watch, create, update, patch, delete, deletecollection (or the lower-cased
  // method for non-resource paths).
  std::string verb;
};

// nullopt when the path is not under /api or /apis. A path under them that is not a
// resource (/api, /apis/apps) gives is_resource_request = false.
std::optional<RequestInfo> parse_request_info(const http::Request& request);

}  // namespace k3c::apiserver
