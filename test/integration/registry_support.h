// A real docker-registry (Debian's distribution registry) for the tests that pull: started
// on 127.0.0.1, in the test's network namespace or in a namespaced server's, with storage in
// the sandbox; images pushed through its HTTP API with the project's HTTP client. Plus what
// its configurations need: a test CA and serving certificate, htpasswd (Basic) auth and a
// token issuer for Bearer auth. Everything stays on the loopback.
#pragma once

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include "http/http_client.h"
#include "images/test_images.h"
#include "run_command.h"
#include "server_sandbox.h"

namespace k3c::testing {

using namespace std::chrono_literals;

inline constexpr const char* kRegistryBinary = "/usr/bin/docker-registry";

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

inline RegistryImage registry_busybox_image() {
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

inline TlsFiles make_tls(const std::string& dir) {
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

inline std::string base64url(const std::string& bytes) {
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

inline std::string base64(const std::string& bytes) {
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

inline RegistryAuth htpasswd_auth(const Sandbox& box, const std::string& user,
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
  // `netns`: a network namespace (/proc/<pid>/ns/net) the registry runs and is reached in
  // (a namespaced server's); "" = the test's own.
  Registry(const Sandbox& box, const std::string& name, std::optional<TlsFiles> tls = {},
           RegistryAuth auth = {}, std::string netns = "")
      : box_(box),
        name_(name),
        port_(free_port()),
        tls_(std::move(tls)),
        auth_(std::move(auth)),
        netns_(std::move(netns)) {
    REQUIRE(exists(kRegistryBinary));  // scripts/install-deps.sh installs docker-registry
    std::string config =
        "version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n"
        "    rootdirectory: " +
        storage() + "\nhttp:\n  addr: 127.0.0.1:" + std::to_string(port_) + "\n";
    if (tls_) config += "  tls:\n    certificate: " + tls_->cert + "\n    key: " + tls_->key + "\n";
    config += auth_.config_yaml;
    std::ofstream(box.path(name + ".yml")) << config;
    std::vector<std::string> argv = {kRegistryBinary, "serve", box.path(name + ".yml")};
    if (!netns_.empty()) argv.insert(argv.begin(), {"/usr/bin/nsenter", "--net=" + netns_});
    process_.emplace(argv, std::map<std::string, std::string>{{"PATH", "/usr/bin:/bin"}},
                     box.path(name));
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
    if (netns_.empty()) return http::fetch(req);
    // setns() moves only the calling thread, and fetch() makes its socket on the caller's.
    std::optional<Result<http::ClientResponse>> out;
    std::thread([&] {
      const int fd = open(netns_.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0 || setns(fd, CLONE_NEWNET) != 0) {
        out = error(Code::kServiceUnavailable, "cannot enter " + netns_);
      } else {
        out = http::fetch(req);
      }
      if (fd >= 0) close(fd);
    }).join();
    return std::move(*out);
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
  std::string netns_;
  std::optional<ChildProcess> process_;
};

}  // namespace k3c::testing
