#include "roles/controllers/certificates/csr_signing_controller.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "api/json_fields.h"
#include "core/base64.h"
#include "core/go_format.h"
#include "roles/controllers/common/objects.h"

namespace k3c::controllers {
namespace {

const client::ResourceId kCsrs{"certificates.k8s.io", "v1", "certificatesigningrequests", false};

constexpr std::string_view kApiServerClient = "kubernetes.io/kube-apiserver-client";
constexpr std::string_view kKubeletClient = "kubernetes.io/kube-apiserver-client-kubelet";
constexpr std::string_view kKubeletServing = "kubernetes.io/kubelet-serving";

bool has_true_condition(const json& csr, std::string_view type) {
  const json& conditions = api::member(api::member(csr, "status"), "conditions");
  if (!conditions.is_array()) return false;
  return std::any_of(conditions.begin(), conditions.end(), [&](const json& c) {
    return api::text(c, "type") == type && api::text(c, "status") == "True";
  });
}

std::vector<std::string> usages_of(const json& csr) {
  std::vector<std::string> out;
  const json& usages = api::member(api::member(csr, "spec"), "usages");
  if (!usages.is_array()) return out;
  for (const json& u : usages) {
    if (u.is_string()) out.push_back(u.get<std::string>());
  }
  return out;
}

// The CA file pair a signer signs with, by k3s's layout.
std::optional<std::string> ca_file_stem(std::string_view signer) {
  if (signer == kApiServerClient || signer == kKubeletClient) return "client-ca";
  if (signer == kKubeletServing) return "server-ca";
  return std::nullopt;
}

Result<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return error(Code::kNotFound, "cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Upstream's kubelet CSR rules: the subject is a node's, and the usages are exactly these
// (with or without key encipherment, which an ECDSA key does not use).
std::optional<std::string> kubelet_refusal(const pki::CertificateRequestInfo& r,
                                           const std::set<std::string>& usages, bool serving) {
  if (r.organizations != std::vector<std::string>{"system:nodes"})
    return "subject organization is not system:nodes";
  const std::string auth = serving ? "server auth" : "client auth";
  const std::set<std::string> full = {"digital signature", "key encipherment", auth};
  const std::set<std::string> no_rsa = {"digital signature", auth};
  auto node_name = [&]() -> std::optional<std::string> {
    if (r.common_name.rfind("system:node:", 0) != 0)
      return "subject common name does not begin with system:node:";
    return std::nullopt;
  };
  auto wrong_usages = [&]() -> std::optional<std::string> {
    if (usages == full || usages == no_rsa) return std::nullopt;
    return "usages did not match " + go_list({full.begin(), full.end()});
  };
  if (serving) {
    if (r.dns_names == 0 && r.ip_addresses == 0) return "DNS or IP subjectAltName is required";
    if (r.email_addresses > 0) return "Email subjectAltNames are not allowed";
    if (r.uris > 0) return "URI subjectAltNames are not allowed";
    if (auto e = wrong_usages()) return e;
    return node_name();
  }
  if (r.dns_names > 0) return "DNS subjectAltNames are not allowed";
  if (r.email_addresses > 0) return "Email subjectAltNames are not allowed";
  if (r.ip_addresses > 0) return "IP subjectAltNames are not allowed";
  if (r.uris > 0) return "URI subjectAltNames are not allowed";
  if (auto e = node_name()) return e;
  return wrong_usages();
}

}  // namespace

CsrSigningController::CsrSigningController(ControllerContext& ctx, std::string tls_dir,
                                           std::chrono::seconds duration)
    : Controller("csr-signing"),
      ctx_(ctx),
      csrs_(ctx.informers.informer(kCsrs)),
      tls_dir_(std::move(tls_dir)),
      duration_(duration) {
  auto changed = [this](const client::ObjectPtr& csr) { enqueue(client::key_of(*csr)); };
  csrs_.add_handler({changed, [=](auto&, auto& now) { changed(now); }, nullptr});
}

std::optional<std::string> CsrSigningController::refusal(const std::string& signer,
                                                         const pki::CertificateRequestInfo& request,
                                                         const std::vector<std::string>& usages) {
  if (signer == kApiServerClient) {
    bool client_auth = false;
    for (const std::string& u : usages) {
      if (u == "client auth") {
        client_auth = true;
      } else if (u != "digital signature" && u != "key encipherment") {
        return "invalid usage for client certificate: " + u;
      }
    }
    if (!client_auth)
      return std::string("missing required usage for client certificate: client auth");
    return std::nullopt;
  }
  const std::set<std::string> set(usages.begin(), usages.end());
  if (signer == kKubeletClient) return kubelet_refusal(request, set, false);
  if (signer == kKubeletServing) return kubelet_refusal(request, set, true);
  return std::nullopt;
}

std::chrono::seconds CsrSigningController::lifetime(const json& csr,
                                                    std::chrono::seconds duration) {
  const json& asked = api::member(api::member(csr, "spec"), "expirationSeconds");
  if (!asked.is_number_integer()) return duration;
  const auto requested = std::chrono::seconds(asked.get<int64_t>());
  constexpr std::chrono::seconds kMinimum{600};
  return std::clamp(requested, std::min(kMinimum, duration), duration);
}

Status CsrSigningController::reconcile(const std::string& key) {
  auto cached = csrs_.get(key);
  if (!cached) return Status::ok();
  const json& csr = *cached;
  const std::string signer = api::text(api::member(csr, "spec"), "signerName");
  const auto stem = ca_file_stem(signer);
  if (!stem || !has_true_condition(csr, "Approved") || has_true_condition(csr, "Failed") ||
      has_true_condition(csr, "Denied") ||
      !api::text(api::member(csr, "status"), "certificate").empty())
    return Status::ok();
  const std::string request_pem =
      base64_decode(api::text(api::member(csr, "spec"), "request")).value_or("");
  auto request = pki::read_certificate_request(request_pem);
  // The API server validated the request: one that does not read now is left as it is.
  if (!request.is_ok()) return Status::ok();
  json updated = csr;
  const std::vector<std::string> usages = usages_of(csr);
  if (auto why = refusal(signer, *request, usages)) {
    json& conditions = updated["status"]["conditions"];
    if (!conditions.is_array()) conditions = json::array();
    conditions.push_back({{"type", "Failed"},
                          {"status", "True"},
                          {"reason", "SignerValidationFailure"},
                          {"message", *why},
                          {"lastUpdateTime", ctx_.now()}});
  } else {
    pki::CertKey ca;
    ASSIGN_OR_RETURN(ca.cert_pem, read_file(tls_dir_ + "/" + *stem + ".crt"));
    ASSIGN_OR_RETURN(ca.key_pem, read_file(tls_dir_ + "/" + *stem + ".key"));
    pki::CsrSigningPolicy policy{usages, lifetime(csr, duration_), &ctx_.clock};
    ASSIGN_OR_RETURN(std::string certificate,
                     pki::sign_certificate_request(ca, request_pem, policy));
    updated["status"]["certificate"] = base64_encode(certificate);
  }
  auto written = client::update(ctx_.client, kCsrs, updated, "status");
  // A newer version of the request comes back through the informer.
  if (!written.is_ok() &&
      (written.status().code() == Code::kConflict || written.status().code() == Code::kNotFound))
    return Status::ok();
  return written.status();
}

}  // namespace k3c::controllers
