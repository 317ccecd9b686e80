// The SPDY/3 header compression dictionary, as the SPDY/3 draft defines it: a list of
// length-prefixed header names and values, then a run of common status texts, dates and
// media types. Built once from that description; 1423 bytes.
#include <string>
#include <string_view>

#include "streaming/spdy.h"

namespace k3c::streaming::spdy {
namespace {

constexpr const char* kWords[] = {"options",
                                  "head",
                                  "post",
                                  "put",
                                  "delete",
                                  "trace",
                                  "accept",
                                  "accept-charset",
                                  "accept-encoding",
                                  "accept-language",
                                  "accept-ranges",
                                  "age",
                                  "allow",
                                  "authorization",
                                  "cache-control",
                                  "connection",
                                  "content-base",
                                  "content-encoding",
                                  "content-language",
                                  "content-length",
                                  "content-location",
                                  "content-md5",
                                  "content-range",
                                  "content-type",
                                  "date",
                                  "etag",
                                  "expect",
                                  "expires",
                                  "from",
                                  "host",
                                  "if-match",
                                  "if-modified-since",
                                  "if-none-match",
                                  "if-range",
                                  "if-unmodified-since",
                                  "last-modified",
                                  "location",
                                  "max-forwards",
                                  "pragma",
                                  "proxy-authenticate",
                                  "proxy-authorization",
                                  "range",
                                  "referer",
                                  "retry-after",
                                  "server",
                                  "te",
                                  "trailer",
                                  "transfer-encoding",
                                  "upgrade",
                                  "user-agent",
                                  "vary",
                                  "via",
                                  "warning",
                                  "www-authenticate",
                                  "method",
                                  "get",
                                  "status",
                                  "200 OK",
                                  "version",
                                  "HTTP/1.1",
                                  "url",
                                  "public",
                                  "set-cookie",
                                  "keep-alive",
                                  "origin"};

constexpr std::string_view kTail =
    "100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505"
    "203 Non-Authoritative Information204 No Content301 Moved Permanently400 Bad Request401 "
    "Unauthorized403 Forbidden404 Not Found500 Internal Server Error501 Not Implemented503 "
    "Service UnavailableJan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, "
    "Wed, Thu, Fri, Sat, Sun, GMTchunked,text/html,image/png,image/jpg,image/gif,"
    "application/xml,application/xhtml+xml,text/plain,text/javascript,publicprivatemax-age="
    "gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.";

std::string build() {
  std::string d;
  for (std::string_view w : kWords) {
    const auto n = static_cast<uint32_t>(w.size());
    for (int shift = 24; shift >= 0; shift -= 8)
      d.push_back(static_cast<char>((n >> shift) & 0xFF));
    d.append(w);
  }
  d.append(kTail);
  return d;
}

}  // namespace

std::string_view dictionary() {
  static const std::string d = build();
  return d;
}

}  // namespace k3c::streaming::spdy
