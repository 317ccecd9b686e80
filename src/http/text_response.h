// A short answer with a body of a given content type: the plain-text errors and small bodies
// the kubelet API and the protocol handshakes send (as upstream's http.Error writes them).
#pragma once

#include <string>

#include "http/http.h"

namespace k3c::http {

inline Response text_response(int status, std::string body,
                              const char* content_type = "text/plain; charset=utf-8") {
  Response r;
  r.status = status;
  r.set_header("Content-Type", content_type);
  r.body = std::move(body);
  return r;
}

}  // namespace k3c::http
