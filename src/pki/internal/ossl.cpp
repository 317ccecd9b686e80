// Turns OpenSSL's error queue into a Status message.
#include "pki/internal/ossl.h"

#include <openssl/err.h>

#include <string>

namespace k3c::pki::internal {

Status openssl_error(Code code, std::string_view what) {
  std::string message(what);
  bool first = true;
  while (unsigned long err = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(err, buf, sizeof buf);
    message += first ? ": " : "; ";
    message += buf;
    first = false;
  }
  if (first) message += ": (no OpenSSL error detail)";
  return error(code, std::move(message));
}

}  // namespace k3c::pki::internal
