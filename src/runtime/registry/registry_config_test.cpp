// registries.yaml parsing, endpoint resolution, WWW-Authenticate parsing and platform
// selection: the pure parts of the registry client.
#include <catch2/catch.hpp>

#include "runtime/registry/auth_challenge.h"
#include "runtime/registry/endpoints.h"
#include "runtime/registry/manifest.h"
#include "runtime/registry/registries_config.h"

namespace k3c::runtime::registry {
namespace {

RegistriesConfig parse(const std::string& yaml) {
  auto c = parse_registries(yaml, "/etc/k3c/registries.yaml");
  INFO(c.status().message());
  REQUIRE(c.is_ok());
  return *c;
}

std::string parse_error(const std::string& yaml) {
  auto c = parse_registries(yaml, "/etc/k3c/registries.yaml");
  REQUIRE_FALSE(c.is_ok());
  CHECK(c.status().code() == Code::kInvalid);
  return c.status().message();
}

std::vector<Endpoint> endpoints(const std::string& ref, const RegistriesConfig& config) {
  auto parsed = parse_reference(ref);
  REQUIRE(parsed.is_ok());
  auto e = endpoints_for(*parsed, config);
  REQUIRE(e.is_ok());
  return *e;
}

TEST_CASE("registries.yaml: mirrors, rewrites, auth and tls as k3s writes them") {
  const RegistriesConfig c = parse(R"y(
mirrors:
  docker.io:
    endpoint:
      - "https://mirror.example.com:5000"
      - "http://10.0.0.5:5000/"
    rewrite:
      "^rancher/(.*)": "mirrorproject/rancher-images/$1"
  "*":
    endpoint: ["https://all.example.com"]
configs:
  "mirror.example.com:5000":
    auth:
      username: alice
      password: secret
    tls:
      ca_file: /etc/ssl/mirror-ca.pem
      cert_file: /etc/ssl/client.pem
      key_file: /etc/ssl/client-key.pem
  "10.0.0.5:5000":
    auth:
      auth: Ym9iOnB3OmQ=
    tls:
      insecure_skip_verify: true
  registry.example.com:
    auth:
      identitytoken: refresh-me
)y");
  REQUIRE(c.mirrors.size() == 2);
  CHECK(c.mirrors.at("docker.io").endpoints.size() == 2);
  REQUIRE(c.mirrors.at("docker.io").rewrites.size() == 1);
  const HostConfig& m = c.configs.at("mirror.example.com:5000");
  CHECK(m.auth->username == "alice");
  CHECK(m.auth->password == "secret");
  CHECK(m.tls.ca_file == "/etc/ssl/mirror-ca.pem");
  CHECK(m.tls.key_file == "/etc/ssl/client-key.pem");
  const HostConfig& plain = c.configs.at("10.0.0.5:5000");
  CHECK(plain.auth->username == "bob");
  CHECK(plain.auth->password == "pw:d");  // only the first colon splits
  CHECK(plain.tls.insecure_skip_verify);
  CHECK(c.configs.at("registry.example.com").auth->identity_token == "refresh-me");
  CHECK(parse("").mirrors.empty());
}

TEST_CASE("registries.yaml: bad input names the file and the key") {
  CHECK(parse_error("mirrors: [a]") ==
        "/etc/k3c/registries.yaml: mirrors: must be a mapping of registry names");
  CHECK(parse_error("mirrors:\n  docker.io:\n    endpoint: https://x\n") ==
        "/etc/k3c/registries.yaml: mirrors.docker.io.endpoint: must be a list of URLs");
  CHECK(parse_error("mirrors:\n  docker.io:\n    endpoint: [\"ftp://x\"]\n") ==
        "/etc/k3c/registries.yaml: mirrors.docker.io.endpoint[0]: scheme must be http or https");
  CHECK(parse_error("mirrors:\n  docker.io:\n    endpoints: []\n") ==
        "/etc/k3c/registries.yaml: mirrors.docker.io.endpoints: unknown key");
  CHECK(parse_error("mirrors:\n  docker.io:\n    rewrite:\n      \"(\": x\n")
            .starts_with("/etc/k3c/registries.yaml: mirrors.docker.io.rewrite.(: bad regular "
                         "expression"));
  // Go's syntax, checked by RE2: a repeat count past 1000 is refused.
  CHECK(parse_error("mirrors:\n  docker.io:\n    rewrite:\n      \"a{1001}\": x\n")
            .starts_with("/etc/k3c/registries.yaml: mirrors.docker.io.rewrite.a{1001}: "
                         "bad regular expression: error parsing regexp: "));
  CHECK(parse_error("configs:\n  r:\n    auth:\n      auth: '!!!'\n") ==
        "/etc/k3c/registries.yaml: configs.r.auth.auth: must be base64 of \"username:password\"");
  CHECK(parse_error("configs:\n  r:\n    tls:\n      insecure_skip_verify: maybe\n") ==
        "/etc/k3c/registries.yaml: configs.r.tls.insecure_skip_verify: must be true or false");
  CHECK(parse_error("configs:\n  r:\n    tls:\n      cert_file: /c\n") ==
        "/etc/k3c/registries.yaml: configs.r.tls: cert_file and key_file go together");
  CHECK(parse_error("configs:\n  r:\n    auth:\n      user: x\n") ==
        "/etc/k3c/registries.yaml: configs.r.auth.user: unknown key");
  CHECK(parse_error("mirrors: {a: [b\n").starts_with("/etc/k3c/registries.yaml: "));
  CHECK(parse_error("- a\n") ==
        "/etc/k3c/registries.yaml: (top level): must be a mapping with "
        "mirrors and configs");
}

TEST_CASE("a missing registries.yaml is an empty configuration") {
  auto c = load_registries("/nonexistent/registries.yaml");
  REQUIRE(c.is_ok());
  CHECK(c->mirrors.empty());
}

TEST_CASE("references resolve to endpoints as k3s configures containerd") {
  const RegistriesConfig none;
  auto hub = endpoints("busybox", none);
  REQUIRE(hub.size() == 1);
  CHECK(hub[0].base == "https://registry-1.docker.io/v2");
  CHECK(hub[0].path == "library/busybox");
  CHECK(hub[0].is_default);
  auto own = endpoints("registry.example.com:5000/team/app:1", none);
  CHECK(own[0].base == "https://registry.example.com:5000/v2");
  CHECK(own[0].path == "team/app");
  // Loopback registries default to plain HTTP, as containerd's CRI plugin does.
  CHECK(endpoints("127.0.0.1:5000/x:1", none)[0].base == "http://127.0.0.1:5000/v2");
  CHECK(endpoints("localhost:5000/x:1", none)[0].base == "http://localhost:5000/v2");

  const RegistriesConfig c = parse(R"y(
mirrors:
  docker.io:
    endpoint: ["https://mirror.example.com:5000", "mirror2.example.com/prefix/v2/hub/", "https://registry-1.docker.io"]
    rewrite:
      "^rancher/(.*)": "mirrorproject/rancher-images/$1"
  "*":
    endpoint: ["http://all.example.com:8080"]
configs:
  mirror.example.com:5000:
    tls: {ca_file: /ca.pem}
  docker.io:
    auth: {username: hub, password: pw}
)y");
  auto rancher = endpoints("rancher/coredns-coredns:1.6.3", c);
  REQUIRE(rancher.size() == 3);
  CHECK(rancher[0].base == "https://mirror.example.com:5000/v2");
  CHECK(rancher[0].path == "mirrorproject/rancher-images/coredns-coredns");
  CHECK(rancher[0].config.tls.ca_file == "/ca.pem");
  CHECK_FALSE(rancher[0].config.auth);  // the registry's credentials stay with the registry
  CHECK(rancher[1].base == "https://mirror2.example.com/prefix/v2/hub");
  CHECK(rancher[2].base == "https://registry-1.docker.io/v2");
  CHECK(rancher[2].path == "rancher/coredns-coredns");  // never rewritten
  CHECK(rancher[2].config.auth->username == "hub");
  auto other = endpoints("quay.io/org/img:2", c);
  REQUIRE(other.size() == 2);
  CHECK(other[0].base == "http://all.example.com:8080/v2");
  CHECK(other[1].base == "https://quay.io/v2");
}

TEST_CASE("WWW-Authenticate challenges parse, several per header") {
  auto c = parse_challenges(
      R"(Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/busybox:pull")");
  REQUIRE(c.size() == 1);
  CHECK(c[0].scheme == "bearer");
  CHECK(c[0].params["realm"] == "https://auth.docker.io/token");
  CHECK(c[0].params["service"] == "registry.docker.io");
  CHECK(c[0].params["scope"] == "repository:library/busybox:pull");
  auto two =
      parse_challenges(R"(Basic realm="Registry \"Realm\"", Bearer realm=http://a/t , error=x)");
  REQUIRE(two.size() == 2);
  CHECK(two[0].scheme == "basic");
  CHECK(two[0].params["realm"] == "Registry \"Realm\"");
  CHECK(two[1].scheme == "bearer");
  CHECK(two[1].params["realm"] == "http://a/t");
  CHECK(two[1].params["error"] == "x");
  CHECK(parse_challenges("").empty());
  auto broken = parse_challenges(R"(Bearer realm="unclosed)");
  REQUIRE(broken.size() == 1);
  CHECK(broken[0].params.empty());
  CHECK(parse_token_response(R"({"token":"t1","access_token":"t2"})").value() == "t1");
  CHECK(parse_token_response(R"({"access_token":"t2"})").value() == "t2");
  CHECK_FALSE(parse_token_response("<html>").is_ok());
  CHECK_FALSE(parse_token_response(R"({"token":""})").is_ok());
}

Descriptor entry(std::string os, std::string arch, std::string variant, char digit) {
  Descriptor d;
  d.media_type = std::string(kOciManifest);
  d.digest = "sha256:" + std::string(64, digit);
  d.size = 10;
  d.platform = {std::move(os), std::move(arch), std::move(variant)};
  return d;
}

TEST_CASE("the host's platform is chosen from an index") {
  const std::vector<Descriptor> index = {
      entry("unknown", "unknown", "", '0'), entry("linux", "arm", "v6", '1'),
      entry("linux", "arm", "v7", '2'),     entry("linux", "arm64", "v8", '3'),
      entry("linux", "amd64", "", '4'),     entry("windows", "amd64", "", '5')};
  CHECK(select_platform(index, {"linux", "amd64", ""})->digest.back() == '4');
  CHECK(select_platform(index, {"linux", "arm64", "v8"})->digest.back() == '3');
  CHECK(select_platform(index, {"linux", "arm64", ""})->digest.back() == '3');
  CHECK(select_platform(index, {"linux", "arm", "v7"})->digest.back() == '2');
  CHECK(select_platform({index[1], index[4]}, {"linux", "arm", "v7"})->digest.back() == '1');
  CHECK(select_platform({entry("linux", "arm64", "", '6')}, {"linux", "arm64", "v8"})
            ->digest.back() == '6');
  auto none = select_platform(index, {"linux", "s390x", ""});
  REQUIRE_FALSE(none.is_ok());
  CHECK(none.status().code() == Code::kNotFound);
  CHECK(none.status().message().find("linux/s390x") != std::string::npos);
  CHECK(
      select_platform({entry("linux", "arm", "v8", '7')}, {"linux", "arm", "v7"}).status().code() ==
      Code::kNotFound);
}

TEST_CASE("manifests parse by media type; schema 1 and garbage are refused") {
  const std::string oci =
      R"({"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json",
    "config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:)" +
      std::string(64, 'a') + R"(","size":7},
    "layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"sha256:)" +
      std::string(64, 'b') + R"(","size":9}]})";
  auto m = parse_manifest(oci, "application/vnd.oci.image.manifest.v1+json");
  REQUIRE(m.is_ok());
  CHECK_FALSE(m->is_index);
  CHECK(m->config.size == 7);
  REQUIRE(m->layers.size() == 1);
  CHECK(m->layers[0].size == 9);
  auto list = parse_manifest(
      R"({"schemaVersion":2,"manifests":[{"mediaType":"application/vnd.docker.distribution.manifest.v2+json","digest":"sha256:)" +
          std::string(64, 'c') +
          R"(","size":1,"platform":{"architecture":"amd64","os":"linux"}}]})",
      "application/vnd.docker.distribution.manifest.list.v2+json");
  REQUIRE(list.is_ok());
  CHECK(list->is_index);
  CHECK(list->manifests[0].platform.architecture == "amd64");
  CHECK(parse_manifest(R"({"schemaVersion":1,"name":"x"})",
                       "application/vnd.docker.distribution.manifest.v1+prettyjws")
            .status()
            .message()
            .find("schema 1 are not supported") != std::string::npos);
  CHECK_FALSE(parse_manifest("<html>", "text/html").is_ok());
  CHECK_FALSE(parse_manifest(R"({"mediaType":"application/vnd.oci.image.manifest.v1+json",
    "config":{"digest":"md5:x","size":1},"layers":[]})",
                             "")
                  .is_ok());
  CHECK(parse_manifest("{}", "application/x-unknown").status().message() ==
        "unsupported manifest media type \"application/x-unknown\"");
}

}  // namespace
}  // namespace k3c::runtime::registry
