// The puller against an in-memory registry (a fake transport): tags and digests, indexes,
// the Bearer and Basic auth flows, mirrors with rewrites and fallback, and every way a
// registry's answer can be wrong (nothing is stored then).
#include "runtime/registry/puller.h"

#include <catch2/catch.hpp>
#include <filesystem>

#include "core/base64.h"
#include "images/test_images.h"
#include "temp_dir.h"

namespace k3c::runtime::registry {
namespace {

using testing::RegistryImage;

class FakeRegistry : public HttpTransport {
 public:
  enum class Auth { kNone, kBearer, kBasic };
  std::string host = "reg.test";
  Auth auth = Auth::kNone;
  std::string user, password;  // what the token endpoint (bearer) or the registry (basic) wants
  std::map<std::string, std::pair<std::string, std::string>> manifests;  // repo/ref -> type, bytes
  std::map<std::string, std::string> blobs;
  std::vector<std::string> log;
  bool down = false;
  std::string last_token_body;

  void add(const std::string& repo, const std::string& tag, const RegistryImage& image) {
    const std::string type = "application/vnd.oci.image.manifest.v1+json";
    manifests[repo + "/" + tag] = {type, image.manifest};
    manifests[repo + "/" + image.manifest_digest] = {type, image.manifest};
    for (const auto& [digest, bytes] : image.blobs) blobs[digest] = bytes;
  }

  Result<TransportResponse> send(const TransportRequest& r) override {
    std::string auth_header;
    for (const auto& [k, v] : r.headers) {
      if (k == "Authorization") auth_header = v;
    }
    log.push_back(r.method + " " + r.url + (auth_header.empty() ? "" : " [" + auth_header + "]"));
    if (down) return error(Code::kServiceUnavailable, "dial tcp: connection refused");
    const std::string basic = "Basic " + base64_encode(user + ":" + password);
    if (r.url.starts_with("https://auth.test/token")) {
      last_token_body = r.body;
      if (!user.empty() && auth_header != basic) return answer(401, "");
      return answer(200, R"({"access_token":"good"})");
    }
    const std::string prefix = "https://" + host + "/v2/";
    if (!r.url.starts_with(prefix)) return error(Code::kServiceUnavailable, "no such host");
    const std::string rest = r.url.substr(prefix.size());
    if (auth == Auth::kBearer && auth_header != "Bearer good") {
      TransportResponse resp = answer(401, R"({"errors":[{"code":"UNAUTHORIZED"}]})");
      resp.headers.emplace_back(
          "www-authenticate",
          R"(Bearer realm="https://auth.test/token",service="reg.test",scope="repository:test/busybox:pull")");
      return resp;
    }
    if (auth == Auth::kBasic && auth_header != basic) {
      TransportResponse resp = answer(401, "");
      resp.headers.emplace_back("www-authenticate", R"(Basic realm="fake")");
      return resp;
    }
    if (size_t at = rest.find("/manifests/"); at != std::string::npos) {
      auto it = manifests.find(rest.substr(0, at) + "/" + rest.substr(at + 11));
      if (it == manifests.end()) {
        return answer(404,
                      R"({"errors":[{"code":"MANIFEST_UNKNOWN","message":"manifest unknown"}]})");
      }
      TransportResponse resp = answer(200, it->second.second);
      resp.headers.emplace_back("content-type", it->second.first);
      return resp;
    }
    if (size_t at = rest.find("/blobs/"); at != std::string::npos) {
      auto it = blobs.find(rest.substr(at + 7));
      if (it == blobs.end()) return answer(404, R"({"errors":[{"code":"BLOB_UNKNOWN"}]})");
      if (!r.sink) return answer(200, it->second);
      for (size_t i = 0; i < it->second.size(); i += 1000) {
        RETURN_IF_ERROR(r.sink(std::string_view(it->second).substr(i, 1000)));
      }
      return answer(200, "");
    }
    return answer(404, "");
  }

 private:
  static TransportResponse answer(int status, std::string body) {
    TransportResponse resp;
    resp.status = status;
    resp.body = std::move(body);
    return resp;
  }
};

RegistryImage test_image(const std::string& arch = "amd64") {
  testing::TestImage image;
  image.architecture = arch;
  image.layers = {{testing::file("bin/hello", "hi from " + arch, 0755)},
                  {testing::file("etc/motd", std::string(5000, 'm'))}};
  image.layer_compression = testing::Compression::kGzip;
  return testing::registry_image(image);
}

struct PullerFixture {
  TempDir dir;
  std::unique_ptr<ImageStore> store = ImageStore::open(dir.path()).value();
  std::shared_ptr<FakeRegistry> transport = std::make_shared<FakeRegistry>();
  FakeRegistry& registry = *transport;
  PullOptions options;
  PullerFixture() { options.platform = {"linux", "amd64", ""}; }

  Result<ImageRecord> pull(const std::string& ref, RegistriesConfig config = {},
                           std::optional<RegistryAuth> auth = std::nullopt) {
    Puller puller(transport, std::move(config), options);
    return puller.pull(*store, ref, auth);
  }
  size_t stored_blobs() const {
    size_t n = 0;
    for ([[maybe_unused]] auto& e :
         std::filesystem::directory_iterator(dir.path() + "/agent/image-store/blobs/sha256")) {
      ++n;
    }
    return n;
  }
  size_t temp_files() const {
    size_t n = 0;
    for ([[maybe_unused]] auto& e :
         std::filesystem::directory_iterator(dir.path() + "/agent/image-store/tmp")) {
      ++n;
    }
    return n;
  }
};

TEST_CASE("an image is pulled by tag and by digest into the store") {
  PullerFixture f;
  const RegistryImage image = test_image();
  f.registry.add("test/busybox", "1", image);
  auto record = f.pull("reg.test/test/busybox:1");
  INFO(record.status().message());
  REQUIRE(record.is_ok());
  CHECK(record->manifest_digest == image.manifest_digest);
  CHECK(record->layers.size() == 2);
  CHECK(record->architecture == "amd64");
  CHECK(record->references ==
        std::vector<std::string>{"reg.test/test/busybox:1",
                                 "reg.test/test/busybox@" + image.manifest_digest});
  CHECK(f.store->find("reg.test/test/busybox:1").is_ok());
  CHECK(f.stored_blobs() == 4);  // manifest, config, two layers
  CHECK(f.temp_files() == 0);
  CHECK(f.registry.log.front() == "GET https://reg.test/v2/test/busybox/manifests/1");

  auto by_digest = f.pull("reg.test/test/busybox@" + image.manifest_digest);
  REQUIRE(by_digest.is_ok());
  CHECK(by_digest->id == record->id);
  auto root = f.store->unpack("reg.test/test/busybox:1");
  REQUIRE(root.is_ok());
  CHECK(std::filesystem::exists(*root + "/bin/hello"));
}

TEST_CASE("a re-pull of a stored image fetches only the manifest") {
  PullerFixture f;
  const RegistryImage image = test_image();
  f.registry.add("test/busybox", "1", image);
  REQUIRE(f.pull("reg.test/test/busybox:1").is_ok());
  f.registry.log.clear();
  f.registry.add("test/busybox", "2", image);
  auto again = f.pull("reg.test/test/busybox:2");
  REQUIRE(again.is_ok());
  CHECK(f.registry.log ==
        std::vector<std::string>{"GET https://reg.test/v2/test/busybox/manifests/2"});
  CHECK(again->references.size() == 3);  // :1, :2 and the digest
  // A blob gone from disk makes the pull fetch everything again.
  std::filesystem::remove(f.dir.path() + "/agent/image-store/blobs/sha256/" +
                          again->layers[0].digest.substr(7));
  f.registry.log.clear();
  REQUIRE(f.pull("reg.test/test/busybox:2").is_ok());
  CHECK(f.registry.log.size() == 4);
  CHECK(f.store->unpack("reg.test/test/busybox:1").is_ok());
}

TEST_CASE("an identity token is exchanged as an OAuth2 refresh token") {
  PullerFixture f;
  f.registry.add("test/busybox", "1", test_image());
  f.registry.auth = FakeRegistry::Auth::kBearer;
  auto yaml = parse_registries("configs:\n  reg.test:\n    auth: {identitytoken: refresh-me}\n",
                               "registries.yaml");
  REQUIRE(yaml.is_ok());
  REQUIRE(f.pull("reg.test/test/busybox:1", *yaml).is_ok());
  CHECK(f.registry.log[1] == "POST https://auth.test/token");
  CHECK(f.registry.last_token_body ==
        "grant_type=refresh_token&client_id=k3c&refresh_token=refresh-me&service=reg.test&"
        "scope=repository%3Atest%2Fbusybox%3Apull");
}

TEST_CASE("the host's platform is taken from an index") {
  PullerFixture f;
  const RegistryImage amd = test_image("amd64");
  const RegistryImage arm = test_image("arm64");
  f.registry.add("test/multi", "ignored-amd", amd);
  f.registry.add("test/multi", "ignored-arm", arm);
  const std::string index =
      R"({"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[)"
      R"({"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":")" +
      arm.manifest_digest + R"(","size":)" + std::to_string(arm.manifest.size()) +
      R"(,"platform":{"os":"linux","architecture":"arm64","variant":"v8"}},)"
      R"({"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":")" +
      amd.manifest_digest + R"(","size":)" + std::to_string(amd.manifest.size()) +
      R"(,"platform":{"os":"linux","architecture":"amd64"}}]})";
  f.registry.manifests["test/multi/2"] = {"application/vnd.oci.image.index.v1+json", index};
  auto record = f.pull("reg.test/test/multi:2");
  INFO(record.status().message());
  REQUIRE(record.is_ok());
  CHECK(record->manifest_digest == amd.manifest_digest);
  CHECK(record->architecture == "amd64");
  // The repo digest is the index's, as crictl shows it.
  CHECK(record->references.back() == "reg.test/test/multi@sha256:" + testing::sha256_hex(index));

  f.options.platform = {"linux", "riscv64", ""};
  auto none = f.pull("reg.test/test/multi:2");
  REQUIRE_FALSE(none.is_ok());
  CHECK(none.status().message().find("no match for platform in manifest: linux/riscv64") !=
        std::string::npos);
}

TEST_CASE("Bearer challenges get a token, anonymously or with credentials") {
  PullerFixture f;
  f.registry.add("test/busybox", "1", test_image());
  f.registry.auth = FakeRegistry::Auth::kBearer;
  REQUIRE(f.pull("reg.test/test/busybox:1").is_ok());
  CHECK(f.registry.log[1] ==
        "GET https://auth.test/token?scope=repository%3Atest%2Fbusybox%3Apull&service=reg.test");
  CHECK(f.registry.log[2] == "GET https://reg.test/v2/test/busybox/manifests/1 [Bearer good]");
  // Later requests of the pull carry the token from the start.
  CHECK(f.registry.log.size() == 6);

  f.registry.user = "alice";
  f.registry.password = "pw";
  f.registry.log.clear();
  auto denied = f.pull("reg.test/test/busybox:1");
  REQUIRE_FALSE(denied.is_ok());
  CHECK(denied.status().code() == Code::kUnauthorized);
  CHECK(denied.status().message() ==
        "failed to pull and unpack image \"reg.test/test/busybox:1\": failed to resolve reference "
        "\"reg.test/test/busybox:1\": failed to authorize: failed to fetch anonymous token: "
        "unexpected status from GET request to https://auth.test/token: 401 Unauthorized");

  auto yaml = parse_registries("configs:\n  reg.test:\n    auth: {username: alice, password: pw}\n",
                               "registries.yaml");
  REQUIRE(yaml.is_ok());
  CHECK(f.pull("reg.test/test/busybox:1", *yaml).is_ok());
  // Credentials from imagePullSecrets do as well.
  CHECK(f.pull("reg.test/test/busybox:1", {}, RegistryAuth{"alice", "pw", ""}).is_ok());
}

TEST_CASE("Basic challenges are answered with the credentials") {
  PullerFixture f;
  f.registry.add("test/busybox", "1", test_image());
  f.registry.auth = FakeRegistry::Auth::kBasic;
  f.registry.user = "bob";
  f.registry.password = "builder";
  auto anonymous = f.pull("reg.test/test/busybox:1");
  REQUIRE_FALSE(anonymous.is_ok());
  CHECK(anonymous.status().code() == Code::kUnauthorized);
  CHECK(anonymous.status().message() ==
        "failed to pull and unpack image \"reg.test/test/busybox:1\": failed to resolve reference "
        "\"reg.test/test/busybox:1\": pull access denied, repository does not exist or may "
        "require authorization: 401 Unauthorized");
  auto wrong = f.pull("reg.test/test/busybox:1", {}, RegistryAuth{"bob", "wrong", ""});
  REQUIRE_FALSE(wrong.is_ok());
  CHECK(wrong.status().code() == Code::kUnauthorized);
  CHECK(f.pull("reg.test/test/busybox:1", {}, RegistryAuth{"bob", "builder", ""}).is_ok());
}

TEST_CASE("an unknown image is not found, with the registry's words") {
  PullerFixture f;
  auto missing = f.pull("reg.test/test/none");
  REQUIRE_FALSE(missing.is_ok());
  CHECK(missing.status().code() == Code::kNotFound);
  CHECK(missing.status().message() ==
        "failed to pull and unpack image \"reg.test/test/none:latest\": failed to resolve "
        "reference \"reg.test/test/none:latest\": reg.test/test/none:latest: not found: manifest "
        "unknown");
}

TEST_CASE("a blob whose bytes do not match its digest or size is rejected, nothing stored") {
  PullerFixture f;
  RegistryImage image = test_image();
  f.registry.add("test/busybox", "1", image);
  // Same size, other bytes: the layer's digest cannot match.
  std::string& layer = f.registry.blobs.begin()->second;
  const bool is_config = layer.front() == '{';
  layer[layer.size() / 2] ^= 1;
  auto bad = f.pull("reg.test/test/busybox:1");
  REQUIRE_FALSE(bad.is_ok());
  CHECK(bad.status().code() == Code::kInvalid);
  CHECK(bad.status().message().find(std::string("failed commit on ref \"") +
                                    (is_config ? "config" : "layer") + "-" +
                                    f.registry.blobs.begin()->first +
                                    "\": unexpected commit digest sha256:") != std::string::npos);
  CHECK(f.stored_blobs() == 0);
  CHECK(f.temp_files() == 0);
  CHECK(f.store->list()->empty());

  layer += "more";
  auto longer = f.pull("reg.test/test/busybox:1");
  REQUIRE_FALSE(longer.is_ok());
  CHECK(longer.status().message().find("bytes its descriptor says") != std::string::npos);
  CHECK(f.stored_blobs() == 0);

  // A manifest served for a digest that it does not hash to.
  f.registry.manifests["test/busybox/" + image.manifest_digest].second += " ";
  auto by_digest = f.pull("reg.test/test/busybox@" + image.manifest_digest);
  REQUIRE_FALSE(by_digest.is_ok());
  CHECK(by_digest.status().code() == Code::kInvalid);
}

TEST_CASE("garbage manifests are clear errors") {
  PullerFixture f;
  f.registry.manifests["test/x/1"] = {"text/html", "<html>hello</html>"};
  auto html = f.pull("reg.test/test/x:1");
  REQUIRE_FALSE(html.is_ok());
  CHECK(html.status().message() ==
        "failed to pull and unpack image \"reg.test/test/x:1\": the manifest is not a JSON object");
}

TEST_CASE("mirrors are tried first with their rewrites, then the default endpoint") {
  PullerFixture f;
  f.registry.host = "mirror.test";
  f.registry.add("mirrored/busybox", "1", test_image());
  auto yaml = parse_registries(R"y(
mirrors:
  reg.test:
    endpoint: ["https://mirror.test"]
    rewrite:
      "^test/(.*)": "mirrored/$1"
)y",
                               "registries.yaml");
  REQUIRE(yaml.is_ok());
  auto record = f.pull("reg.test/test/busybox:1", *yaml);
  INFO(record.status().message());
  REQUIRE(record.is_ok());
  CHECK(record->references.front() == "reg.test/test/busybox:1");  // the name as asked
  CHECK(f.registry.log.front() == "GET https://mirror.test/v2/mirrored/busybox/manifests/1");

  // The mirror lacks the image: the default endpoint is asked next (and is down here).
  f.registry.log.clear();
  auto missing = f.pull("reg.test/test/other:1", *yaml);
  REQUIRE_FALSE(missing.is_ok());
  REQUIRE(f.registry.log.size() == 2);
  CHECK(f.registry.log[1] == "GET https://reg.test/v2/test/other/manifests/1");
  CHECK(missing.status().code() == Code::kServiceUnavailable);
  CHECK(missing.status().message().find("failed to do request: no such host") != std::string::npos);
}

}  // namespace
}  // namespace k3c::runtime::registry
