// The kubelet API's plain-text answers (errors and short bodies), as upstream's kubelet
// writes them with http.Error: text/plain, the body as given.
#pragma once

#include <string>

#include "http/http.h"

namespace k3c::kubelet {

inline http::Response plain_text(int status, std::string body) {
  http::Response r;
  r.status = status;
  r.set_header("Content-Type", "text/plain; charset=utf-8");
  r.body = std::move(body);
  return r;
}

}  // namespace k3c::kubelet
