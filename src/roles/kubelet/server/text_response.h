// A kubelet API answer with a body of a given content type (plain text by default).
#pragma once

#include <string>

#include "http/http.h"

namespace k3c::kubelet {

inline http::Response text_response(int status, std::string body,
                                    const char* type = "text/plain; charset=utf-8") {
  http::Response r;
  r.status = status;
  r.set_header("Content-Type", type);
  r.body = std::move(body);
  return r;
}

}  // namespace k3c::kubelet
