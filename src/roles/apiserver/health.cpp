// Health endpoints (see health.h).
#include "roles/apiserver/health.h"

#include <algorithm>
#include <set>

#include "roles/apiserver/content.h"

namespace k3c::apiserver {
namespace {

http::Response text(int status, std::string body) {
  http::Response r = body_response(status, std::move(body), "text/plain; charset=utf-8");
  r.set_header("X-Content-Type-Options", "nosniff");
  return r;
}

}  // namespace

void HealthChecks::add(std::string name, Check check, bool readyz_only) {
  checks_.push_back({std::move(name), std::move(check), readyz_only});
}

std::optional<http::Response> HealthChecks::serve(const http::Request& request) const {
  const std::string& path = request.path;
  std::string endpoint;
  for (const char* e : {"healthz", "livez", "readyz"}) {
    const std::string root = std::string("/") + e;
    if (path == root || path.rfind(root + "/", 0) == 0) endpoint = e;
  }
  if (endpoint.empty()) return std::nullopt;
  const bool ready = endpoint == "readyz";
  const std::string root = "/" + endpoint;
  if (path != root) {
    // One check alone: its reason is given.
    const std::string name = path.substr(root.size() + 1);
    for (const Entry& c : checks_) {
      if (c.name != name || (c.readyz_only && !ready)) continue;
      Status s = c.check();
      if (!s.is_ok()) return text(500, "internal server error: " + s.message() + "\n");
      return text(200, "ok");
    }
    return text(404, "404 page not found\n");
  }
  std::set<std::string> excluded;
  for (auto v : request.params("exclude")) excluded.emplace(v);
  std::string listing;
  bool failed = false;
  for (const Entry& c : checks_) {
    if (c.readyz_only && !ready) continue;
    if (excluded.erase(c.name)) {
      listing += "[+]" + c.name + " excluded: ok\n";
      continue;
    }
    if (c.check().is_ok()) {
      listing += "[+]" + c.name + " ok\n";
    } else {
      listing += "[-]" + c.name + " failed: reason withheld\n";
      failed = true;
    }
  }
  if (!excluded.empty()) {
    std::string names;
    for (const auto& n : excluded) names += (names.empty() ? "" : ",") + ("\"" + n + "\"");
    listing += "warn: some health checks cannot be excluded: no matches for " + names + "\n";
  }
  // Always verbose on failure.
  if (failed) return text(500, listing + endpoint + " check failed\n");
  if (!request.param("verbose")) return text(200, "ok");
  return text(200, listing + endpoint + " check passed\n");
}

}  // namespace k3c::apiserver
