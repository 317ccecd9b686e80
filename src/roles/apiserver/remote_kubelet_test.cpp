// What the API server sends on to a kubelet in another process: the request target, and the
// client's headers without its credentials.
#include "roles/apiserver/remote_kubelet.h"

#include <catch2/catch.hpp>

namespace k3c::apiserver {
namespace {

TEST_CASE("a remote kubelet gets the client's protocol headers, never its credentials") {
  http::Request request;
  request.path = "/exec/default/web/app";
  request.query = {{"command", "sh -c 'exit 3'"}, {"stdout", "1"}};
  request.headers = {{"host", "127.0.0.1:6443"},
                     {"authorization", "Bearer secret-token"},
                     {"impersonate-user", "someone"},
                     {"impersonate-group", "system:masters"},
                     {"cookie", "session=secret"},
                     {"content-length", "0"},
                     {"upgrade", "websocket"},
                     {"connection", "Upgrade"},
                     {"sec-websocket-protocol", "v5.channel.k8s.io"},
                     {"x-stream-protocol-version", "v4.channel.k8s.io"},
                     {"x-stream-protocol-version", "v3.channel.k8s.io"}};
  using Headers = std::vector<std::pair<std::string, std::string>>;
  CHECK(forwarded_headers(request) == Headers{{"upgrade", "websocket"},
                                              {"connection", "Upgrade"},
                                              {"sec-websocket-protocol", "v5.channel.k8s.io"},
                                              {"x-stream-protocol-version", "v4.channel.k8s.io"},
                                              {"x-stream-protocol-version", "v3.channel.k8s.io"}});
  CHECK(request_target(request) ==
        "/exec/default/web/app?command=sh%20-c%20%27exit%203%27&stdout=1");
}

}  // namespace
}  // namespace k3c::apiserver
