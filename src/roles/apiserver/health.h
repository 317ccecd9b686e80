// The health endpoints as upstream's healthz package serves them: /healthz, /livez and
// /readyz run their checks (`?verbose` lists them, `?exclude=<name>` skips one); each check
// also answers alone at /<endpoint>/<name>. A failed check makes the endpoint 500 with the
// list (reasons withheld, as upstream: the endpoint is public) and `<endpoint> check failed`;
// the check's own path gives its reason. The checks (api_server.cpp): the store answers a
// read (etcd), the server is not shutting down (readyz), and, as upstream's post-start hooks
// and informer sync, the CRD controller was started and the watch cache loaded.
//
// Thread-safety: add() before serving; serve() from any thread.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "http/http.h"

namespace k3c::apiserver {

class HealthChecks {
 public:
  using Check = std::function<Status()>;
  // `readyz_only`: not part of /healthz and /livez.
  void add(std::string name, Check check, bool readyz_only = false);
  // The answer when `request` is for a health path; nullopt otherwise.
  std::optional<http::Response> serve(const http::Request& request) const;

 private:
  struct Entry {
    std::string name;
    Check check;
    bool readyz_only;
  };
  std::vector<Entry> checks_;
};

}  // namespace k3c::apiserver
