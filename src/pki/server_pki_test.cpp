// ensure_server_pki: first start, reuse, re-issue on new SANs and near expiry, the chains and
// names of what it issues, and clear errors for damaged files.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "core/clock.h"
#include "pki/internal/cert_inspect.h"
#include "pki/internal/pem.h"
#include "pki/pki.h"
#include "temp_dir.h"

namespace k3c::pki {
namespace {

using internal::X509Ptr;

std::string pki_slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void spit(const std::string& path, const std::string& data) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << data;
}

unsigned pki_mode_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

X509Ptr cert(const std::string& pem) {
  auto parsed = internal::parse_cert_pem(pem, "test");
  REQUIRE(parsed.is_ok());
  return std::move(parsed).value();
}

// Verifies `leaf` against `ca` alone for `purpose` at time `when` (OpenSSL's own chain check).
bool verifies(const std::string& leaf_pem, const std::string& ca_pem, int purpose,
              std::time_t when) {
  X509Ptr leaf = cert(leaf_pem), ca = cert(ca_pem);
  std::unique_ptr<X509_STORE, internal::Free<X509_STORE_free>> store(X509_STORE_new());
  std::unique_ptr<X509_STORE_CTX, internal::Free<X509_STORE_CTX_free>> ctx(X509_STORE_CTX_new());
  REQUIRE(X509_STORE_add_cert(store.get(), ca.get()) == 1);
  REQUIRE(X509_STORE_CTX_init(ctx.get(), store.get(), leaf.get(), nullptr) == 1);
  X509_STORE_CTX_set_purpose(ctx.get(), purpose);
  X509_STORE_CTX_set_time(ctx.get(), 0, when);
  return X509_verify_cert(ctx.get()) == 1;
}

std::time_t wall(const Clock& clock) {
  return std::chrono::system_clock::to_time_t(clock.wall_now());
}

struct Fixture {
  TempDir tmp;
  ManualClock clock;
  PkiOptions options;
  Fixture() {
    options.tls_dir = tmp.path() + "/server/tls";
    options.sans = {"k3c.example.com", "192.168.1.10"};
    options.hostname = "edge-1";
    options.clock = &clock;
  }
  std::string path(const std::string& name) const { return options.tls_dir + "/" + name; }
  ServerPki ensure() {
    auto pki = ensure_server_pki(options);
    INFO(pki.status().to_string());
    REQUIRE(pki.is_ok());
    return std::move(pki).value();
  }
  // Every file's bytes, by name.
  std::map<std::string, std::string> files() const {
    std::map<std::string, std::string> out;
    for (const auto& entry : std::filesystem::directory_iterator(options.tls_dir)) {
      out[entry.path().filename().string()] = pki_slurp(entry.path().string());
    }
    return out;
  }
};

// In directory_iterator-sorted order.
const std::vector<std::string> kFiles = {"client-admin.crt",
                                         "client-admin.key",
                                         "client-ca.crt",
                                         "client-ca.key",
                                         "server-ca.crt",
                                         "server-ca.key",
                                         "serving-kube-apiserver.crt",
                                         "serving-kube-apiserver.key"};

TEST_CASE("first start creates the k3s files, keys 0600 and the directory 0700") {
  Fixture f;
  ServerPki pki = f.ensure();
  std::vector<std::string> names;
  for (const auto& [name, bytes] : f.files()) names.push_back(name);
  CHECK(names == kFiles);
  CHECK(pki_mode_of(f.options.tls_dir) == 0700);
  CHECK(pki_mode_of(f.tmp.path() + "/server") == 0700);  // a missing parent is made private too
  for (const std::string& name : kFiles) {
    CHECK(pki_mode_of(f.path(name)) == (name.ends_with(".key") ? 0600u : 0644u));
  }
  CHECK(pki.server_ca.cert_path == f.path("server-ca.crt"));
  CHECK(pki.server_ca.cert_pem == pki_slurp(f.path("server-ca.crt")));
  CHECK(pki.admin.key_pem == pki_slurp(f.path("client-admin.key")));
  CHECK(pki.admin.key_pem.starts_with("-----BEGIN EC PRIVATE KEY-----"));
  CHECK(pki.actions.size() == 8);
}

TEST_CASE("a second start reuses every file byte for byte") {
  Fixture f;
  f.ensure();
  auto before = f.files();
  f.clock.advance(std::chrono::hours(24));
  ServerPki again = f.ensure();
  CHECK(f.files() == before);
  CHECK(again.actions.empty());
  CHECK(again.serving.cert_pem == before["serving-kube-apiserver.crt"]);
}

TEST_CASE("a new --tls-san re-issues only the serving certificate, from the same CA") {
  Fixture f;
  f.ensure();
  auto before = f.files();
  f.options.sans.push_back("10.0.0.7");
  ServerPki pki = f.ensure();
  auto after = f.files();
  for (const std::string& name : kFiles) {
    INFO(name);
    CHECK((after[name] == before[name]) == (name != "serving-kube-apiserver.crt"));
  }
  REQUIRE(pki.actions.size() == 1);
  CHECK(pki.actions[0].find("does not cover 10.0.0.7") != std::string::npos);
  X509Ptr serving = cert(pki.serving.cert_pem);
  CHECK(X509_check_ip_asc(serving.get(), "10.0.0.7", 0) == 1);
  CHECK(verifies(pki.serving.cert_pem, pki.server_ca.cert_pem, X509_PURPOSE_SSL_SERVER,
                 wall(f.clock)));
  // Dropping a SAN again does not churn the certificate.
  f.options.sans.pop_back();
  CHECK(f.ensure().actions.empty());
}

TEST_CASE("the serving certificate verifies against server-ca with the expected names") {
  Fixture f;
  ServerPki pki = f.ensure();
  std::time_t now = wall(f.clock);
  CHECK(verifies(pki.serving.cert_pem, pki.server_ca.cert_pem, X509_PURPOSE_SSL_SERVER, now));
  CHECK_FALSE(verifies(pki.serving.cert_pem, pki.client_ca.cert_pem, X509_PURPOSE_SSL_SERVER, now));
  CHECK_FALSE(verifies(pki.serving.cert_pem, pki.server_ca.cert_pem, X509_PURPOSE_SSL_SERVER,
                       now + 366 * 24 * 3600));  // a one-year leaf
  X509Ptr serving = cert(pki.serving.cert_pem);
  for (const char* host :
       {"localhost", "edge-1", "k3c.example.com", "kubernetes", "kubernetes.default",
        "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"}) {
    INFO(host);
    CHECK(X509_check_host(serving.get(), host, 0, 0, nullptr) == 1);
  }
  for (const char* ip : {"127.0.0.1", "::1", "192.168.1.10", "10.43.0.1"}) {
    INFO(ip);
    CHECK(X509_check_ip_asc(serving.get(), ip, 0) == 1);
  }
  CHECK(X509_check_host(serving.get(), "evil.example.com", 0, 0, nullptr) == 0);
  CHECK(X509_check_ip_asc(serving.get(), "10.43.0.2", 0) == 0);
  CHECK(internal::subject_of(serving.get()).common_name == "kube-apiserver");
  CHECK(X509_check_purpose(serving.get(), X509_PURPOSE_SSL_CLIENT, 0) != 1);
  // ECDSA P-256, SHA-256, a random 128-bit serial (12+ bytes unless the first 4 are zero).
  CHECK(EVP_PKEY_get_base_id(X509_get0_pubkey(serving.get())) == EVP_PKEY_EC);
  CHECK(X509_get_signature_nid(serving.get()) == NID_ecdsa_with_SHA256);
  CHECK(ASN1_STRING_length(X509_get0_serialNumber(serving.get())) >= 12);
}

TEST_CASE("the CAs are CAs valid for ten years") {
  Fixture f;
  ServerPki pki = f.ensure();
  for (const CertKey* ca : {&pki.server_ca, &pki.client_ca}) {
    X509Ptr c = cert(ca->cert_pem);
    CHECK(X509_check_ca(c.get()) == 1);
    CHECK_FALSE(internal::expires_before(c.get(), wall(f.clock) + 3649LL * 24 * 3600));
    CHECK(internal::expires_before(c.get(), wall(f.clock) + 3651LL * 24 * 3600));
  }
  CHECK(internal::subject_of(cert(pki.server_ca.cert_pem).get())
            .common_name.starts_with("k3c-server-ca@"));
}

TEST_CASE("the admin certificate is system:admin in system:masters, signed by client-ca") {
  Fixture f;
  ServerPki pki = f.ensure();
  X509Ptr admin = cert(pki.admin.cert_pem);
  internal::Subject subject = internal::subject_of(admin.get());
  CHECK(subject.common_name == "system:admin");
  CHECK(subject.organizations == std::vector<std::string>{"system:masters"});
  std::time_t now = wall(f.clock);
  CHECK(verifies(pki.admin.cert_pem, pki.client_ca.cert_pem, X509_PURPOSE_SSL_CLIENT, now));
  CHECK_FALSE(verifies(pki.admin.cert_pem, pki.server_ca.cert_pem, X509_PURPOSE_SSL_CLIENT, now));
  CHECK_FALSE(verifies(pki.admin.cert_pem, pki.client_ca.cert_pem, X509_PURPOSE_SSL_SERVER, now));
}

TEST_CASE("leaves close to expiry are re-issued from the same CAs, keeping their keys") {
  Fixture f;
  f.ensure();
  auto before = f.files();
  f.clock.advance(std::chrono::days(270));  // 95 days left: kept
  CHECK(f.ensure().actions.empty());
  f.clock.advance(std::chrono::days(10));  // 85 days left: renewed
  ServerPki pki = f.ensure();
  CHECK(pki.actions.size() == 2);
  auto after = f.files();
  for (const std::string& name : kFiles) {
    INFO(name);
    bool leaf_cert = name == "serving-kube-apiserver.crt" || name == "client-admin.crt";
    CHECK((after[name] == before[name]) == !leaf_cert);
  }
  CHECK(verifies(pki.admin.cert_pem, pki.client_ca.cert_pem, X509_PURPOSE_SSL_CLIENT,
                 wall(f.clock) + 300LL * 24 * 3600));
}

TEST_CASE("damaged files are errors that name the file; nothing is regenerated") {
  Fixture f;
  f.ensure();
  auto before = f.files();
  // Replaces (or, with nullopt, removes) one file, and expects exactly that state afterwards.
  auto damage = [&](const std::string& name, std::optional<std::string> contents) {
    if (contents) {
      spit(f.path(name), *contents);
      before[name] = *contents;
    } else {
      std::filesystem::remove(f.path(name));
      before.erase(name);
    }
  };
  std::string expected;  // the error message starts with this
  Code code = Code::kCorrupt;

  SECTION("a corrupt CA key") {
    damage("server-ca.key", "not a key\n");
    expected = f.path("server-ca.key") + ": not an unencrypted PEM private key";
  }
  SECTION("a truncated certificate") {
    damage("client-ca.crt", before["client-ca.crt"].substr(0, 200));
    expected = f.path("client-ca.crt") + ": not a PEM certificate";
  }
  SECTION("a certificate that does not match its key") {
    damage("client-ca.key", before["server-ca.key"]);
    expected = f.path("client-ca.crt") + " does not match its key " + f.path("client-ca.key");
  }
  SECTION("a CA certificate without its key") {
    damage("server-ca.key", std::nullopt);
    expected = f.path("server-ca.key") + " is missing";
    code = Code::kNotFound;
  }
  SECTION("a CA key whose certificate went missing after leaves were issued") {
    damage("server-ca.crt", std::nullopt);
    expected = f.path("server-ca.crt") + " is missing";
    code = Code::kNotFound;
  }
  auto pki = ensure_server_pki(f.options);
  REQUIRE_FALSE(pki.is_ok());
  CHECK(pki.status().code() == code);
  CHECK_THAT(pki.status().message(), Catch::StartsWith(expected));
  CHECK(f.files() == before);
}

TEST_CASE("a first start builds the directory aside and leaves nothing else behind") {
  Fixture f;
  std::string parent = f.tmp.path() + "/server";
  std::filesystem::create_directories(parent + "/tls.new-Abc123");  // left by a crash
  spit(parent + "/tls.new-Abc123/server-ca.key", "half a PKI");
  f.ensure();
  std::vector<std::string> entries;
  for (const auto& entry : std::filesystem::directory_iterator(parent)) {
    entries.push_back(entry.path().filename().string());
  }
  CHECK(entries == std::vector<std::string>{"tls"});
}

TEST_CASE("a CA whose key was written but not its certificate is finished with that key") {
  Fixture f;
  f.ensure();
  std::string key = pki_slurp(f.path("server-ca.key"));
  std::filesystem::remove_all(f.options.tls_dir);
  std::filesystem::create_directories(f.options.tls_dir);
  spit(f.path("server-ca.key"), key);
  ServerPki pki = f.ensure();
  CHECK(pki.server_ca.key_pem == key);
  CHECK(internal::key_matches(cert(pki.server_ca.cert_pem).get(),
                              internal::parse_key_pem(key, "k")->get()));
}

TEST_CASE("bad options are rejected before anything is written") {
  Fixture f;
  SECTION("a SAN that is neither an IP nor a DNS name") { f.options.sans = {"bad name"}; }
  SECTION("a service IP that is not an IP") { f.options.first_service_ip = "10.43.0"; }
  auto pki = ensure_server_pki(f.options);
  REQUIRE_FALSE(pki.is_ok());
  CHECK(pki.status().code() == Code::kInvalid);
  CHECK_FALSE(std::filesystem::exists(f.options.tls_dir));
}

TEST_CASE("issue_client_cert signs node certificates with the client CA") {
  Fixture f;
  ServerPki pki = f.ensure();
  auto node = issue_client_cert(pki.client_ca, {"system:node:web-1", {"system:nodes"}}, &f.clock);
  REQUIRE(node.is_ok());
  CHECK(node->cert_path.empty());
  X509Ptr c = cert(node->cert_pem);
  CHECK(internal::subject_of(c.get()) == internal::Subject{"system:node:web-1", {"system:nodes"}});
  CHECK(verifies(node->cert_pem, pki.client_ca.cert_pem, X509_PURPOSE_SSL_CLIENT, wall(f.clock)));
  CHECK(internal::key_matches(c.get(), internal::parse_key_pem(node->key_pem, "k")->get()));
  CHECK(issue_client_cert(pki.client_ca, {"", {}}).status().code() == Code::kInvalid);
  CertKey mismatched{pki.client_ca.cert_pem, pki.server_ca.key_pem, "", ""};
  CHECK_FALSE(issue_client_cert(mismatched, {"x", {}}).is_ok());
}

TEST_CASE("ensure_server_pki on an empty directory is fast") {
  TempDir tmp;
  PkiOptions options;
  options.tls_dir = tmp.path() + "/tls";
  auto start = std::chrono::steady_clock::now();
  auto pki = ensure_server_pki(options);
  auto elapsed = std::chrono::steady_clock::now() - start;
  REQUIRE(pki.is_ok());
  // A figure, not a limit: the server should start in about a second in all.
  double ms = std::chrono::duration<double, std::milli>(elapsed).count();
  WARN("ensure_server_pki on an empty dir took " << ms << " ms");
}

}  // namespace
}  // namespace k3c::pki
