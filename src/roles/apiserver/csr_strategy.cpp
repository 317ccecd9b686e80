// CertificateSigningRequest rules (see csr_strategy.h), after upstream's certificates
// registry strategy and validation.
#include "roles/apiserver/csr_strategy.h"

#include <algorithm>
#include <set>

#include "api/field_errors.h"
#include "api/json_fields.h"
#include "core/base64.h"
#include "core/go_format.h"
#include "core/ids.h"
#include "core/names.h"
#include "pki/pki.h"
#include "roles/apiserver/token_authenticator.h"

namespace k3c::apiserver::csr {
namespace {

using nlohmann::json;
namespace fe = api;

constexpr std::string_view kLegacySigner = "kubernetes.io/legacy-unknown";
constexpr int64_t kMinExpirationSeconds = 600;
constexpr size_t kSubdomainMax = 253, kLabelMax = 63;

const json& conditions_of(const json& csr) {
  return api::member(api::member(csr, "status"), "conditions");
}

// Go's %#v of a []byte, which upstream's Invalid prints for spec.request.
std::string go_bytes(std::string_view bytes) {
  std::string out = "[]byte{";
  char buf[8];
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::snprintf(buf, sizeof buf, "%s0x%x", i ? ", " : "",
                  static_cast<unsigned>(static_cast<unsigned char>(bytes[i])));
    out += buf;
  }
  return out + "}";
}

void signer_name_errors(const std::string& signer, fe::FieldErrors& errors) {
  const std::string path = "spec.signerName";
  if (signer.empty()) {
    errors.push_back(fe::required(path));
    return;
  }
  const size_t slash = signer.find('/');
  if (slash == std::string::npos || signer.find('/', slash + 1) != std::string::npos) {
    errors.push_back(fe::invalid(
        path, signer,
        "must be a fully qualified domain and path of the form 'example.com/signer-name'"));
    return;
  }
  const std::string domain = signer.substr(0, slash), rest = signer.substr(slash + 1);
  if (domain.size() > kSubdomainMax) errors.push_back(fe::too_long(path, kSubdomainMax));
  auto check_labels = [&](const std::string& segment, bool subdomain) {
    size_t count = 0, start = 0;
    bool reported = false;
    while (true) {
      const size_t dot = segment.find('.', start);
      const std::string label = segment.substr(start, dot == std::string::npos ? dot : dot - start);
      ++count;
      if (!reported) {
        auto problems = subdomain ? names::dns1123_subdomain_problems(label)
                                  : names::dns1123_label_problems(label);
        for (const auto& p : problems)
          errors.push_back(
              fe::invalid(path, segment, "validating label " + go_quote(label) + ": " + p));
        reported = !problems.empty();  // one label's problems: the rest would repeat them
      }
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    return count;
  };
  if (check_labels(domain, false) < 2) {
    errors.push_back(fe::invalid(
        path, domain, "should be a domain with at least two segments separated by dots"));
  }
  check_labels(rest, true);
  const size_t max_name = kSubdomainMax + (kSubdomainMax + kLabelMax + 1) + 1;
  if (signer.size() > max_name) errors.push_back(fe::too_long(path, max_name));
}

void condition_errors(const json& csr, fe::FieldErrors& errors) {
  const json& conditions = conditions_of(csr);
  if (!conditions.is_array()) return;
  std::set<std::string> seen;
  bool approved = false, denied = false;
  for (size_t i = 0; i < conditions.size(); ++i) {
    const std::string at = fe::index("status.conditions", i);
    const std::string type = api::text(conditions[i], "type");
    const std::string status = api::text(conditions[i], "status");
    if (type.empty()) errors.push_back(fe::required(at + ".type"));
    const bool true_only = type == "Approved" || type == "Denied" || type == "Failed";
    const std::vector<std::string> allowed =
        true_only ? std::vector<std::string>{"True"}
                  : std::vector<std::string>{"False", "True", "Unknown"};
    if (status.empty()) {
      errors.push_back(fe::required(at + ".status"));
    } else if (std::find(allowed.begin(), allowed.end(), status) == allowed.end()) {
      errors.push_back(fe::not_supported(at + ".status", status, allowed));
    }
    if ((type == "Approved" && denied) || (type == "Denied" && approved)) {
      errors.push_back(
          fe::invalid(at + ".type", type, "Approved and Denied conditions are mutually exclusive"));
    }
    approved = approved || type == "Approved";
    denied = denied || type == "Denied";
    if (!seen.insert(type).second) errors.push_back(fe::duplicate(at + ".type", type));
  }
}

std::string certificate_of(const json& csr) {
  auto bytes = base64_decode(api::text(api::member(csr, "status"), "certificate"));
  return bytes.value_or("");
}

// Upstream's validateCertificateSigningRequest: the object as it stands. An update keeps the
// stored spec, so its request (checked at create) is not parsed and verified again.
struct Unchanged {
  bool request = false;
  bool certificate = false;
};
fe::FieldErrors object_errors(const json& csr, Unchanged unchanged) {
  fe::FieldErrors errors;
  const json& spec = api::member(csr, "spec");
  if (!unchanged.request) {
    const std::string request_text = api::text(spec, "request");
    const std::string request = base64_decode(request_text).value_or(request_text);
    if (Status s = pki::check_certificate_request(request); !s.is_ok())
      errors.push_back(fe::invalid("spec.request", nullptr, s.message()));
  }
  const json& usages = api::member(spec, "usages");
  if (!usages.is_array() || usages.empty()) {
    errors.push_back(fe::required("spec.usages"));
  } else {
    for (size_t i = 0; i < usages.size(); ++i) {
      const std::string u = usages[i].is_string() ? usages[i].get<std::string>() : "";
      const auto& known = pki::key_usage_names();
      if (!std::binary_search(known.begin(), known.end(), u))
        errors.push_back(fe::not_supported(fe::index("spec.usages", i), u, known));
    }
    std::set<std::string> seen;
    for (size_t i = 0; i < usages.size(); ++i) {
      const std::string u = usages[i].is_string() ? usages[i].get<std::string>() : "";
      if (!seen.insert(u).second) errors.push_back(fe::duplicate(fe::index("spec.usages", i), u));
    }
  }
  const std::string signer = api::text(spec, "signerName");
  if (signer == kLegacySigner) {
    errors.push_back(fe::invalid("spec.signerName", signer,
                                 "the legacy signerName is not allowed via this API version"));
  } else {
    signer_name_errors(signer, errors);
  }
  const json& expiration = api::member(spec, "expirationSeconds");
  if (expiration.is_number_integer() && expiration.get<int64_t>() < kMinExpirationSeconds) {
    errors.push_back(fe::invalid("spec.expirationSeconds", expiration,
                                 "may not specify a duration less than 600 seconds (10 minutes)"));
  }
  condition_errors(csr, errors);
  if (!unchanged.certificate) {
    if (Status s = pki::check_certificate_chain(certificate_of(csr)); !s.is_ok())
      errors.push_back(fe::invalid("status.certificate", "<certificate data>", s.message()));
  }
  return errors;
}

size_t count_of(const json& csr, std::string_view type) {
  const json& conditions = conditions_of(csr);
  if (!conditions.is_array()) return 0;
  return static_cast<size_t>(
      std::count_if(conditions.begin(), conditions.end(),
                    [&](const json& c) { return api::text(c, "type") == type; }));
}

// A write through /status keeps the Approved and Denied conditions as they were where it
// has as many of them (a change would be silently undone upstream; adding or removing one
// is refused by validation).
void keep_approval_conditions(json& updated, const json& old) {
  auto it = updated["status"].find("conditions");
  if (it == updated["status"].end() || !it->is_array()) return;
  json& conditions = *it;
  for (const char* type : {"Approved", "Denied"}) {
    if (count_of(updated, type) != count_of(old, type)) continue;
    std::vector<json> before;
    for (const auto& c : conditions_of(old)) {
      if (api::text(c, "type") == type) before.push_back(c);
    }
    size_t next = 0;
    for (auto& c : conditions) {
      if (api::text(c, "type") == type) c = before[next++];
    }
  }
}

// New conditions: lastUpdateTime now, lastTransitionTime that of the same type and status
// before (or now).
void stamp_conditions(json& updated, const json& old, const std::string& now) {
  auto it = updated["status"].find("conditions");
  if (it == updated["status"].end() || !it->is_array()) return;
  json& conditions = *it;
  for (auto& c : conditions) {
    if (!c.is_object()) continue;
    if (api::text(c, "lastUpdateTime").empty()) c["lastUpdateTime"] = now;
    if (!api::text(c, "lastTransitionTime").empty()) continue;
    std::string since = now;
    for (const auto& o : conditions_of(old)) {
      if (api::text(o, "type") == api::text(c, "type") &&
          api::text(o, "status") == api::text(c, "status") &&
          !api::text(o, "lastTransitionTime").empty()) {
        since = api::text(o, "lastTransitionTime");
        break;
      }
    }
    c["lastTransitionTime"] = since;
  }
}

ApiError invalid_csr(const json& csr, const fe::FieldErrors& errors) {
  std::vector<StatusCause> causes;
  for (const auto& e : errors) {
    // spec.request is shown as Go shows the bytes.
    std::string body =
        e.field == "spec.request"
            ? "Invalid value: " +
                  go_bytes(
                      base64_decode(api::text(api::member(csr, "spec"), "request")).value_or("")) +
                  ": " + e.detail
            : e.body();
    causes.push_back({e.reason(), std::move(body), e.field});
  }
  return invalid("certificates.k8s.io", "CertificateSigningRequest",
                 api::text(api::member(csr, "metadata"), "name"), std::move(causes));
}

}  // namespace

bool is_csr(const api::Resource& r) {
  return r.group == "certificates.k8s.io" && r.plural == "certificatesigningrequests";
}

void prepare_create(json& csr, const http::PeerIdentity* user) {
  json& spec = csr["spec"];
  if (!spec.is_object()) spec = json::object();
  for (const char* field : {"username", "uid", "groups", "extra"}) spec.erase(field);
  if (user) {
    // The same fields as a UserInfo, but none left empty (they are omitempty upstream).
    const json info = user_info(*user);
    for (const auto& [k, v] : info.items()) {
      if (!(v.is_string() ? v.get_ref<const std::string&>().empty() : v.empty())) spec[k] = v;
    }
  }
  csr["status"] = json::object();
}

std::optional<ApiError> validate_create(const json& csr) {
  auto errors = object_errors(csr, {});
  if (errors.empty()) return std::nullopt;
  return invalid_csr(csr, errors);
}

std::optional<ApiError> prepare_update(json& updated, const json& old, std::string_view subresource,
                                       std::chrono::system_clock::time_point now) {
  updated["spec"] = api::member(old, "spec");
  if (!updated["status"].is_object()) updated["status"] = json::object();
  json& status = updated["status"];
  const json& old_status = api::member(old, "status");
  if (subresource == "approval") {
    // Only the conditions change: the certificate stays as it was.
    const json& cert = api::member(old_status, "certificate");
    if (cert.is_null()) {
      status.erase("certificate");
    } else {
      status["certificate"] = cert;
    }
  } else if (subresource == "status") {
    keep_approval_conditions(updated, old);
  }
  stamp_conditions(updated, old, rfc3339(now));
  if (status.contains("conditions") && status["conditions"].is_array() &&
      status["conditions"].empty())
    status.erase("conditions");

  const bool certificate_unchanged = certificate_of(updated) == certificate_of(old);
  fe::FieldErrors errors =
      object_errors(updated, {.request = true, .certificate = certificate_unchanged});
  for (const char* type : {"Approved", "Denied", "Failed"}) {
    if (count_of(updated, type) < count_of(old, type)) {
      errors.push_back(fe::forbidden(
          "status.conditions", "updates may not remove a condition of type " + go_quote(type)));
    }
  }
  if (subresource != "approval") {
    for (const char* type : {"Approved", "Denied"}) {
      if (count_of(updated, type) > count_of(old, type)) {
        errors.push_back(fe::forbidden(
            "status.conditions", "updates may not add a condition of type " + go_quote(type)));
      }
    }
  }
  if (!certificate_unchanged) {
    if (subresource != "status") {
      errors.push_back(
          fe::forbidden("status.certificate", "updates may not set certificate content"));
    } else if (!certificate_of(old).empty()) {
      errors.push_back(fe::forbidden("status.certificate",
                                     "updates may not modify existing certificate content"));
    }
  }
  if (errors.empty()) return std::nullopt;
  return invalid_csr(updated, errors);
}

}  // namespace k3c::apiserver::csr
