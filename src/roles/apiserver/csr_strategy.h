// CertificateSigningRequests as upstream's certificates registry treats them:
// - create: spec.username, uid, groups and extra are the requester's (whatever the body
//   said), and the status starts empty (nobody creates an approved request);
// - each write path changes its own part: an update of the object only its metadata,
//   /status the certificate (and conditions other than Approved/Denied), /approval the
//   conditions;
// - validation: the request is a PEM PKCS#10 whose signature verifies, usages are given,
//   known and not repeated, the signer name is `domain/path`, expirationSeconds >= 600,
//   conditions well formed (Approved and Denied exclusive, never removed), the certificate
//   PEM blocks that parse, set once. New conditions get their timestamps.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "api/registry.h"
#include "http/http.h"
#include "roles/apiserver/api_errors.h"

namespace k3c::apiserver::csr {

bool is_csr(const api::Resource& r);

// Before a create is validated: the requester's identity into spec (none when `user` is
// null, as for the server's own writes).
void prepare_create(nlohmann::json& csr, const http::PeerIdentity* user);

std::optional<ApiError> validate_create(const nlohmann::json& csr);

// After the generic update rules (object_meta.h) kept what the write path may not change:
// narrows `updated` further for `subresource` ("", "status" or "approval"), stamps new
// conditions with `now`, and validates the result against `old`.
std::optional<ApiError> prepare_update(nlohmann::json& updated, const nlohmann::json& old,
                                       std::string_view subresource,
                                       std::chrono::system_clock::time_point now);

}  // namespace k3c::apiserver::csr
