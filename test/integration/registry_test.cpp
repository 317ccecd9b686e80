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
#include "registry_support.h"

namespace k3c {
namespace {

using namespace k3c::testing;

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
  const RegistryImage image = registry_busybox_image();
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
  registry.push("test/busybox", "1", registry_busybox_image());
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
  registry.push("test/busybox", "1", registry_busybox_image());
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
  const RegistryImage image = registry_busybox_image();
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
