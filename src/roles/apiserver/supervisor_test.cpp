// The join endpoints: the CA for anyone, certificates only with the token's password and a
// well-formed node, a node name kept with its first password.
#include "roles/apiserver/supervisor.h"

#include <openssl/pem.h>

#include <catch2/catch.hpp>

#include "core/base64.h"
#include "temp_dir.h"

namespace k3c::apiserver {
namespace {

struct SupervisorFixture {
  SupervisorFixture() {
    pki::PkiOptions options;
    options.tls_dir = tmp.path() + "/tls";
    pki = *pki::ensure_server_pki(options);
    token.password = "s3cret";
    token.username = "server";
    supervisor = std::make_unique<Supervisor>(pki.server_ca, pki.client_ca, token,
                                              tmp.path() + "/cred/node-passwd");
  }
  http::Response get(const std::string& path,
                     std::vector<std::pair<std::string, std::string>> headers) {
    http::Request r;
    r.method = "GET";
    r.path = r.target = path;
    r.headers = std::move(headers);
    return supervisor->serve(r);
  }
  std::vector<std::pair<std::string, std::string>> node(const std::string& name,
                                                        const std::string& password,
                                                        const std::string& ips = "10.0.0.5") {
    return {{"authorization", pki::basic_authorization(token)},
            {"k3c-node-name", name},
            {"k3c-node-password", password},
            {"k3c-node-ip", ips}};
  }
  TempDir tmp;
  pki::ServerPki pki;
  pki::ParsedToken token;
  std::unique_ptr<Supervisor> supervisor;
};

pki::Identity identity_of(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  REQUIRE(cert != nullptr);
  auto id = pki::identity_from_certificate(cert);
  X509_free(cert);
  REQUIRE(id.is_ok());
  return *id;
}

TEST_CASE("the supervisor serves the CA to anyone and certificates only to the token") {
  SupervisorFixture f;
  CHECK(Supervisor::handles("/cacerts"));
  CHECK(Supervisor::handles("/v1-k3c/client-kubelet.crt"));
  CHECK_FALSE(Supervisor::handles("/api/v1/nodes"));
  http::Response ca = f.get("/cacerts", {});
  CHECK(ca.status == 200);
  CHECK(ca.body == f.pki.server_ca.cert_pem);

  CHECK(f.get("/v1-k3c/client-kubelet.crt", {}).status == 401);
  pki::ParsedToken wrong = f.token;
  wrong.password = "nope";
  CHECK(f.get("/v1-k3c/client-kubelet.crt", {{"authorization", pki::basic_authorization(wrong)},
                                             {"k3c-node-name", "n1"},
                                             {"k3c-node-password", "p"}})
            .status == 401);
  CHECK(f.get("/v1-k3c/client-ca.crt", f.node("n1", "p")).body == f.pki.client_ca.cert_pem);
  CHECK(f.get("/v1-k3c/other", f.node("n1", "p")).status == 404);

  http::Response client = f.get("/v1-k3c/client-kubelet.crt", f.node("n1", "p"));
  REQUIRE(client.status == 200);
  auto pair = pki::split_cert_and_key(client.body);
  REQUIRE(pair.is_ok());
  pki::Identity id = identity_of(pair->cert_pem);
  CHECK(id.user == "system:node:n1");
  CHECK(id.groups.at(0) == "system:nodes");
  http::Response serving = f.get("/v1-k3c/serving-kubelet.crt", f.node("n1", "p"));
  REQUIRE(serving.status == 200);
  CHECK(pki::split_cert_and_key(serving.body).is_ok());
}

TEST_CASE("the supervisor refuses malformed nodes (400) and a taken node name (403)") {
  SupervisorFixture f;
  auto status = [&](std::vector<std::pair<std::string, std::string>> h) {
    return f.get("/v1-k3c/serving-kubelet.crt", std::move(h)).status;
  };
  CHECK(status(f.node("", "p")) == 400);
  CHECK(status(f.node("Not_A_Name", "p")) == 400);
  CHECK(status(f.node("n1", "")) == 400);
  CHECK(status(f.node("n1", "p", "10.0.0.5,not-an-ip")) == 400);
  CHECK(status(f.node("n1", "first")) == 200);
  CHECK(status(f.node("n1", "first")) == 200);  // the same machine again
  http::Response taken = f.get("/v1-k3c/client-kubelet.crt", f.node("n1", "second"));
  CHECK(taken.status == 403);
  CHECK_THAT(taken.body, Catch::Contains("another node password"));
  CHECK(status(f.node("n2", "second")) == 200);
}

}  // namespace
}  // namespace k3c::apiserver
