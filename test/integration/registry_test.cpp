// Integration tests of `k3c images pull` against Debian's real registry (docker-registry, the
// CNCF distribution) started by the test on 127.0.0.1: plain HTTP, and HTTPS with a test CA and
// htpasswd (Basic) auth configured through registries.yaml. The image is built from
// busybox-static and pushed through the registry's HTTP API with the project's HTTP client.
// Also: a registry answering garbage, one that hangs, and a blob whose bytes were changed in
// the registry's storage. Everything stays on the loopback.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "fake_tcp_server.h"
#include "http/http_client.h"
#include "images/test_images.h"
#include "run_command.h"
#include "server_sandbox.h"

namespace k3c {
namespace {

using namespace k3c::testing;

constexpr const char* kRegistryBinary = "/usr/bin/docker-registry";

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

RegistryImage busybox_image() {
  TestImage image;
  const std::string busybox = slurp("/bin/busybox");
  REQUIRE_FALSE(busybox.empty());  // scripts/install-deps.sh installs busybox-static
  image.layers = {{dir("bin"), file("bin/busybox", busybox, 0755), symlink("bin/sh", "busybox")},
                  {file("etc/motd", "pulled from a registry\n")}};
  image.layer_compression = Compression::kGzip;
  return registry_image(image);
}

struct TlsFiles {
  std::string ca, cert, key;
};

TlsFiles make_tls(const std::string& dir) {
  TlsFiles f{dir + "/ca.crt", dir + "/tls.crt", dir + "/tls.key"};
  const std::string ca_key = dir + "/ca.key", csr = dir + "/tls.csr", ext = dir + "/ext";
  REQUIRE(run_command({"openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                       "ec_paramgen_curve:P-256", "-nodes", "-keyout", ca_key, "-out", f.ca,
                       "-subj", "/CN=registry-test-ca", "-days", "1"})
              .exit_code == 0);
  REQUIRE(run_command({"openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                       "-nodes", "-keyout", f.key, "-out", csr, "-subj", "/CN=127.0.0.1"})
              .exit_code == 0);
  std::ofstream(ext) << "subjectAltName=IP:127.0.0.1\n";
  REQUIRE(run_command({"openssl", "x509", "-req", "-in", csr, "-CA", f.ca, "-CAkey", ca_key,
                       "-CAcreateserial", "-out", f.cert, "-days", "1", "-extfile", ext})
              .exit_code == 0);
  return f;
}

std::string base64url(const std::string& bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  unsigned value = 0;
  int bits = 0;
  for (unsigned char c : bytes) {
    value = (value << 8) | c;
    bits += 8;
    while (bits >= 6) {
      out += kAlphabet[(value >> (bits - 6)) & 63];
      bits -= 6;
    }
  }
  if (bits > 0) out += kAlphabet[(value << (6 - bits)) & 63];
  return out;
}

std::string base64(const std::string& bytes) {
  std::string out = base64url(bytes);
  for (char& c : out) c = c == '-' ? '+' : c == '_' ? '/' : c;
  while (out.size() % 4 != 0) out += '=';
  return out;
}

// How a registry authenticates: its config's `auth:` block and the Authorization header the
// test's own pushes send.
struct RegistryAuth {
  std::string config_yaml;
  std::string push_authorization;
};

RegistryAuth htpasswd_auth(const Sandbox& box, const std::string& user,
                           const std::string& password) {
  const std::string htpasswd = box.path("htpasswd");
  auto line = run_command({"htpasswd", "-Bbn", user, password});
  REQUIRE(line.exit_code == 0);
  std::ofstream(htpasswd) << line.out;
  return {"auth:\n  htpasswd:\n    realm: k3c-test\n    path: " + htpasswd + "\n",
          "Basic " + base64(user + ":" + password)};
}

// Token auth as the distribution registry verifies it: an RS256 JWT whose x5c header carries
// a certificate from the registry's rootcertbundle (self-signed here, made with openssl, as is
// the signature). One token, valid for an hour, grants pull and push on test/busybox.
struct TokenIssuer {
  std::string cert, key, token;
  TokenIssuer(const Sandbox& box) : cert(box.path("token.crt")), key(box.path("token.key")) {
    REQUIRE(run_command({"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                         "-out", cert, "-subj", "/CN=k3c-test-issuer", "-days", "1"})
                .exit_code == 0);
    const std::string der = box.path("token.der");
    REQUIRE(
        run_command({"openssl", "x509", "-in", cert, "-outform", "DER", "-out", der}).exit_code ==
        0);
    const long now = static_cast<long>(time(nullptr));
    const std::string header =
        R"({"alg":"RS256","typ":"JWT","x5c":[")" + base64(slurp(der)) + R"("]})";
    const std::string claims =
        R"({"iss":"k3c-test-issuer","sub":"alice","aud":"k3c-test-registry","exp":)" +
        std::to_string(now + 3600) + R"(,"nbf":)" + std::to_string(now - 60) + R"(,"iat":)" +
        std::to_string(now - 60) +
        R"(,"jti":"k3c-test-1","access":[{"type":"repository","name":"test/busybox","actions":["pull","push"]}]})";
    const std::string input = base64url(header) + "." + base64url(claims);
    std::ofstream(box.path("token.input"), std::ios::binary) << input;
    REQUIRE(run_command({"openssl", "dgst", "-sha256", "-sign", key, "-out", box.path("token.sig"),
                         box.path("token.input")})
                .exit_code == 0);
    token = input + "." + base64url(slurp(box.path("token.sig")));
  }
  RegistryAuth auth(const std::string& realm) const {
    return {"auth:\n  token:\n    realm: " + realm +
                "\n    service: k3c-test-registry\n    issuer: k3c-test-issuer\n"
                "    rootcertbundle: " +
                cert + "\n",
            "Bearer " + token};
  }
};

// One docker-registry process on 127.0.0.1 with storage in the sandbox.
class Registry {
 public:
  Registry(const Sandbox& box, const std::string& name, std::optional<TlsFiles> tls = {},
           RegistryAuth auth = {})
      : box_(box), name_(name), port_(free_port()), tls_(std::move(tls)), auth_(std::move(auth)) {
    REQUIRE(exists(kRegistryBinary));  // scripts/install-deps.sh installs docker-registry
    std::string config =
        "version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n"
        "    rootdirectory: " +
        storage() + "\nhttp:\n  addr: 127.0.0.1:" + std::to_string(port_) + "\n";
    if (tls_) config += "  tls:\n    certificate: " + tls_->cert + "\n    key: " + tls_->key + "\n";
    config += auth_.config_yaml;
    std::ofstream(box.path(name + ".yml")) << config;
    process_.emplace(std::vector<std::string>{kRegistryBinary, "serve", box.path(name + ".yml")},
                     std::map<std::string, std::string>{{"PATH", "/usr/bin:/bin"}}, box.path(name));
    // Ready when /v2/ answers (200, or 401 when it asks for credentials).
    for (int i = 0; i < 100; ++i) {
      auto r = request("GET", "/v2/", "", {}, false);
      if (r.is_ok() && (r->status == 200 || r->status == 401)) return;
      std::this_thread::sleep_for(100ms);
    }
    FAIL("docker-registry did not come up: " << process_->err());
  }

  std::string authority() const { return "127.0.0.1:" + std::to_string(port_); }
  std::string storage() const { return box_.path(name_ + "-storage"); }

  Result<http::ClientResponse> request(const std::string& method, const std::string& target,
                                       std::string body,
                                       std::vector<std::pair<std::string, std::string>> headers,
                                       bool authenticate = true) const {
    http::ClientRequest req;
    req.method = method;
    req.url = target.starts_with("http") ? target
                                         : (tls_ ? "https://" : "http://") + authority() + target;
    req.body = std::move(body);
    req.headers = std::move(headers);
    req.timeout = 10s;
    if (tls_) req.tls.ca_file = tls_->ca;
    if (authenticate && !auth_.push_authorization.empty()) {
      req.headers.emplace_back("Authorization", auth_.push_authorization);
    }
    return http::fetch(req);
  }

  // Pushes blobs (monolithic upload: POST, then PUT with the bytes) and the manifest.
  void push(const std::string& repo, const std::string& tag, const RegistryImage& image) const {
    for (const auto& [digest, bytes] : image.blobs) {
      auto started = request("POST", "/v2/" + repo + "/blobs/uploads/", "", {});
      REQUIRE(started.is_ok());
      REQUIRE(started->status == 202);
      std::string location(started->header("location").value_or(""));
      location +=
          (location.find('?') == std::string::npos ? "?" : "&") + std::string("digest=") + digest;
      auto put = request("PUT", location, bytes, {{"Content-Type", "application/octet-stream"}});
      REQUIRE(put.is_ok());
      INFO(put->body);
      REQUIRE(put->status == 201);
    }
    auto put = request("PUT", "/v2/" + repo + "/manifests/" + tag, image.manifest,
                       {{"Content-Type", "application/vnd.oci.image.manifest.v1+json"}});
    REQUIRE(put.is_ok());
    INFO(put->body);
    REQUIRE(put->status == 201);
  }

 private:
  const Sandbox& box_;
  std::string name_;
  uint16_t port_;
  std::optional<TlsFiles> tls_;
  RegistryAuth auth_;
  std::optional<ChildProcess> process_;
};

struct PullBox {
  Sandbox box;
  Finished images(std::vector<std::string> args) const {
    std::vector<std::string> argv = {K3C_BINARY, "images", "-d", box.data_dir()};
    argv.insert(argv.end(), args.begin(), args.end());
    return box.run(argv);
  }
  // `k3c images pull` with registries.yaml holding `yaml`.
  Finished pull(const std::string& ref, const std::string& yaml = "",
                std::vector<std::string> extra = {}) const {
    std::ofstream(box.path("registries.yaml")) << yaml;
    std::vector<std::string> args = {"pull", "--private-registry", box.path("registries.yaml")};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back(ref);
    return images(args);
  }
  size_t stored_blobs() const {
    const std::string dir = box.data_dir() + "/agent/image-store/blobs/sha256";
    if (!exists(dir)) return 0;
    size_t n = 0;
    for ([[maybe_unused]] auto& e : std::filesystem::directory_iterator(dir)) ++n;
    return n;
  }
};

TEST_CASE("an image pushed to a real registry over plain HTTP is pulled, listed and runs") {
  PullBox b;
  Registry registry(b.box, "plain");
  const RegistryImage image = busybox_image();
  registry.push("test/busybox", "1", image);
  const std::string ref = registry.authority() + "/test/busybox:1";

  Finished pulled = b.pull(ref);
  INFO(pulled.err);
  REQUIRE(pulled.exit_code == 0);
  CHECK_THAT(pulled.out, Catch::Contains("pulled " + ref + " sha256:"));
  CHECK_THAT(pulled.out, Catch::Contains("pulled " + registry.authority() + "/test/busybox@" +
                                         image.manifest_digest));
  Finished ls = b.images({"ls"});
  REQUIRE(ls.exit_code == 0);
  CHECK_THAT(ls.out, Catch::Contains(registry.authority() + "/test/busybox   1 "));
  Finished root = b.images({"unpack", ref});
  REQUIRE(root.exit_code == 0);
  const std::string dir = root.out.substr(0, root.out.find('\n'));
  auto ran = run_command({dir + "/bin/busybox", "cat", dir + "/etc/motd"});
  CHECK(ran.exit_code == 0);
  CHECK(ran.out == "pulled from a registry\n");

  // An unknown tag is "not found", with the registry's own words.
  Finished missing = b.pull(registry.authority() + "/test/busybox:2");
  CHECK(missing.exit_code == 1);
  CHECK_THAT(missing.err,
             Catch::Contains("failed to pull and unpack image \"" + registry.authority() +
                             "/test/busybox:2\": failed to resolve reference") &&
                 Catch::Contains(": not found: manifest unknown"));
}

TEST_CASE("a TLS registry with htpasswd auth is pulled from with registries.yaml's CA and auth") {
  PullBox b;
  const TlsFiles tls = make_tls(b.box.path(""));
  Registry registry(b.box, "secure", tls, htpasswd_auth(b.box, "alice", "s3cret"));
  registry.push("test/busybox", "1", busybox_image());
  const std::string host = registry.authority();
  const std::string ref = host + "/test/busybox:1";
  const std::string mirror =
      "mirrors:\n  \"" + host + "\":\n    endpoint: [\"https://" + host + "\"]\n";

  Finished good = b.pull(ref, mirror + "configs:\n  \"" + host +
                                  "\":\n    auth: {username: alice, password: s3cret}\n"
                                  "    tls: {ca_file: " +
                                  tls.ca + "}\n");
  INFO(good.err);
  REQUIRE(good.exit_code == 0);
  CHECK_THAT(b.images({"ls"}).out, Catch::Contains(host + "/test/busybox   1 "));

  Finished no_auth =
      b.pull(ref, mirror + "configs:\n  \"" + host + "\":\n    tls: {ca_file: " + tls.ca + "}\n");
  CHECK(no_auth.exit_code == 1);
  CHECK_THAT(no_auth.err,
             Catch::Contains("pull access denied") && Catch::Contains("401 Unauthorized"));

  // --creds gives the credentials for the registry's own host.
  const std::string ca_only =
      mirror + "configs:\n  \"" + host + "\":\n    tls: {ca_file: " + tls.ca + "}\n";
  Finished wrong = b.pull(ref, ca_only, {"--creds", "alice:wrong"});
  CHECK(wrong.exit_code == 1);
  CHECK_THAT(wrong.err, Catch::Contains("401 Unauthorized"));
  Finished creds = b.pull(ref, ca_only, {"--creds", "alice:s3cret"});
  INFO(creds.err);
  CHECK(creds.exit_code == 0);

  Finished unknown_ca = b.pull(ref, mirror + "configs:\n  \"" + host +
                                        "\":\n    auth: {username: alice, password: s3cret}\n");
  CHECK(unknown_ca.exit_code == 1);
  CHECK_THAT(unknown_ca.err, Catch::Contains("tls: failed to verify certificate: x509:"));
}

TEST_CASE("a registry with token auth is pulled from through the Bearer challenge") {
  PullBox b;
  const TokenIssuer issuer(b.box);
  // The token endpoint wants the credentials registries.yaml gives for the registry.
  std::string token_request;
  FakeTcpServer token_server([&](const std::string& request) -> std::optional<std::string> {
    token_request = request.substr(0, request.find("\r\n"));
    if (request.find("Authorization: Basic " + base64("alice:s3cret")) == std::string::npos) {
      return "HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n";
    }
    const std::string body = R"({"token":")" + issuer.token + R"("})";
    return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
           std::to_string(body.size()) + "\r\n\r\n" + body;
  });
  const std::string realm = "http://127.0.0.1:" + std::to_string(token_server.port()) + "/token";
  Registry registry(b.box, "token", {}, issuer.auth(realm));
  registry.push("test/busybox", "1", busybox_image());
  const std::string host = registry.authority();
  const std::string ref = host + "/test/busybox:1";

  Finished anonymous = b.pull(ref);
  CHECK(anonymous.exit_code == 1);
  CHECK_THAT(anonymous.err, Catch::Contains("failed to authorize: failed to fetch anonymous "
                                            "token: unexpected status from GET request to " +
                                            realm + ": 401 Unauthorized"));

  Finished pulled =
      b.pull(ref, "configs:\n  \"" + host + "\":\n    auth: {username: alice, password: s3cret}\n");
  INFO(pulled.err);
  REQUIRE(pulled.exit_code == 0);
  CHECK(token_request ==
        "GET /token?scope=repository%3Atest%2Fbusybox%3Apull&service=k3c-test-registry HTTP/1.1");
  CHECK_THAT(b.images({"ls"}).out, Catch::Contains(host + "/test/busybox   1 "));
}

TEST_CASE("a layer whose bytes changed in the registry's storage is rejected, nothing stored") {
  PullBox b;
  Registry registry(b.box, "tampered");
  const RegistryImage image = busybox_image();
  registry.push("test/busybox", "1", image);
  // The registry serves blob files as they are on disk: flip a byte of the biggest (busybox).
  std::string layer_digest;
  for (const auto& [digest, bytes] : image.blobs) {
    if (layer_digest.empty() || bytes.size() > image.blobs.at(layer_digest).size()) {
      layer_digest = digest;
    }
  }
  const std::string hex = layer_digest.substr(7);
  const std::string data = registry.storage() + "/docker/registry/v2/blobs/sha256/" +
                           hex.substr(0, 2) + "/" + hex + "/data";
  REQUIRE(exists(data));
  std::string bytes = slurp(data);
  bytes[bytes.size() / 2] ^= 0x55;
  std::ofstream(data, std::ios::binary | std::ios::trunc) << bytes;

  Finished pulled = b.pull(registry.authority() + "/test/busybox:1");
  CHECK(pulled.exit_code == 1);
  CHECK_THAT(pulled.err, Catch::Contains("failed commit on ref \"layer-" + layer_digest +
                                         "\": unexpected commit digest sha256:"));
  CHECK(b.stored_blobs() == 0);
  CHECK_THAT(b.images({"ls"}).out, !Catch::Contains("busybox"));
}

TEST_CASE("a registry answering garbage or hanging gives a clear error within the deadline") {
  PullBox b;
  FakeTcpServer garbage([](const std::string&) -> std::optional<std::string> {
    return "220 smtp.example.com ESMTP ready\r\n";
  });
  Finished bad = b.pull("127.0.0.1:" + std::to_string(garbage.port()) + "/test/busybox:1");
  CHECK(bad.exit_code == 1);
  CHECK_THAT(bad.err, Catch::Contains("malformed HTTP answer"));

  FakeTcpServer html([](const std::string&) -> std::optional<std::string> {
    const std::string body = "<html>not a registry</html>";
    return "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: " +
           std::to_string(body.size()) + "\r\n\r\n" + body;
  });
  Finished not_json = b.pull("127.0.0.1:" + std::to_string(html.port()) + "/test/busybox:1");
  CHECK(not_json.exit_code == 1);
  CHECK_THAT(not_json.err, Catch::Contains("the manifest is not a JSON object"));

  FakeTcpServer hung([](const std::string&) -> std::optional<std::string> { return {}; });
  const auto started = std::chrono::steady_clock::now();
  Finished slow = b.pull("127.0.0.1:" + std::to_string(hung.port()) + "/test/busybox:1", "",
                         {"--timeout", "2"});
  const auto took = std::chrono::steady_clock::now() - started;
  CHECK(slow.exit_code == 1);
  CHECK_THAT(slow.err, Catch::Contains("deadline exceeded") || Catch::Contains("no data for"));
  CHECK(took < 10s);
  CHECK(b.stored_blobs() == 0);
}

}  // namespace
}  // namespace k3c
