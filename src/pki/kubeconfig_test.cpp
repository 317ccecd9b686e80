// write_kubeconfig: the k3s shape, the base64 credentials, the mode, atomic replacement.
#include <sys/stat.h>
#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "core/base64.h"
#include "pki/kubeconfig_reader.h"
#include "pki/pki.h"
#include "temp_dir.h"

namespace k3c::pki {
namespace {

unsigned kubeconfig_mode_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

std::string decoded(const YAML::Node& node) {
  std::optional<std::string> bytes = base64_decode(node.as<std::string>());
  REQUIRE(bytes.has_value());
  return *bytes;
}

const std::string kKubeconfigCa = "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n";
const std::string kCert = "-----BEGIN CERTIFICATE-----\nadmin\n-----END CERTIFICATE-----\n";
const std::string kKey = "-----BEGIN EC PRIVATE KEY-----\nkey!\n-----END EC PRIVATE KEY-----\n";

TEST_CASE("the kubeconfig has k3s's shape and the three credentials in base64") {
  TempDir tmp;
  std::string path = tmp.path() + "/etc/k3c/k3c.yaml";  // the parent does not exist yet
  REQUIRE(
      write_kubeconfig(path, 0600, "https://127.0.0.1:6443", kKubeconfigCa, kCert, kKey).is_ok());
  CHECK(kubeconfig_mode_of(path) == 0600);

  YAML::Node config = YAML::LoadFile(path);
  CHECK(config["apiVersion"].as<std::string>() == "v1");
  CHECK(config["kind"].as<std::string>() == "Config");
  CHECK(config["current-context"].as<std::string>() == "default");
  const YAML::Node& cluster = config["clusters"][0];
  CHECK(cluster["name"].as<std::string>() == "default");
  CHECK(cluster["cluster"]["server"].as<std::string>() == "https://127.0.0.1:6443");
  CHECK(decoded(cluster["cluster"]["certificate-authority-data"]) == kKubeconfigCa);
  const YAML::Node& context = config["contexts"][0];
  CHECK(context["name"].as<std::string>() == "default");
  CHECK(context["context"]["cluster"].as<std::string>() == "default");
  CHECK(context["context"]["user"].as<std::string>() == "default");
  const YAML::Node& user = config["users"][0];
  CHECK(user["name"].as<std::string>() == "default");
  CHECK(decoded(user["user"]["client-certificate-data"]) == kCert);
  CHECK(decoded(user["user"]["client-key-data"]) == kKey);
}

TEST_CASE("rewriting a kubeconfig replaces it whole and gives it the new mode") {
  TempDir tmp;
  std::string path = tmp.path() + "/k3c.yaml";
  std::ofstream(path) << "old contents\n";
  REQUIRE(::chmod(path.c_str(), 0644) == 0);
  REQUIRE(write_kubeconfig(path, 0600, "https://k3c.example.com:6443", kKubeconfigCa, kCert, kKey)
              .is_ok());
  CHECK(kubeconfig_mode_of(path) == 0600);
  CHECK(YAML::LoadFile(path)["clusters"][0]["cluster"]["server"].as<std::string>() ==
        "https://k3c.example.com:6443");
  REQUIRE(write_kubeconfig(path, 0644, "https://k3c.example.com:6443", kKubeconfigCa, kCert, kKey)
              .is_ok());
  CHECK(kubeconfig_mode_of(path) == 0644);
  // No temporary files are left behind.
  CHECK(std::distance(std::filesystem::directory_iterator(tmp.path()),
                      std::filesystem::directory_iterator()) == 1);
}

TEST_CASE("a kubeconfig that cannot be written is an error naming the path") {
  TempDir tmp;
  std::string blocker = tmp.path() + "/file";
  std::ofstream(blocker) << "x";
  Status s = write_kubeconfig(blocker + "/k3c.yaml", 0600, "https://127.0.0.1:6443", kKubeconfigCa,
                              kCert, kKey);
  REQUIRE_FALSE(s.is_ok());
  CHECK(s.message().find(blocker) != std::string::npos);
}

TEST_CASE("read_kubeconfig gives back what write_kubeconfig wrote") {
  TempDir tmp;
  std::string path = tmp.path() + "/k3c.yaml";
  REQUIRE(
      write_kubeconfig(path, 0600, "https://127.0.0.1:6443", kKubeconfigCa, kCert, kKey).is_ok());
  auto read = read_kubeconfig(path);
  REQUIRE(read.is_ok());
  CHECK(read->server == "https://127.0.0.1:6443");
  CHECK(read->ca_pem == kKubeconfigCa);
  CHECK(read->client_cert_pem == kCert);
  CHECK(read->client_key_pem == kKey);
  CHECK_FALSE(read->insecure_skip_tls_verify);
}

TEST_CASE("read_kubeconfig follows the current context and reads files beside it") {
  TempDir tmp;
  std::ofstream(tmp.path() + "/ca.crt") << kKubeconfigCa;
  std::ofstream(tmp.path() + "/me.crt") << kCert;
  std::ofstream(tmp.path() + "/me.key") << kKey;
  std::ofstream(tmp.path() + "/config") << R"(apiVersion: v1
kind: Config
clusters:
- name: other
  cluster: {server: "https://other:6443"}
- name: mine
  cluster: {server: "https://10.0.0.1:6443", certificate-authority: ca.crt}
users:
- name: me
  user: {client-certificate: me.crt, client-key: me.key}
contexts:
- name: a
  context: {cluster: other, user: me}
- name: b
  context: {cluster: mine, user: me}
current-context: b
)";
  auto read = read_kubeconfig(tmp.path() + "/config");
  REQUIRE(read.is_ok());
  CHECK(read->server == "https://10.0.0.1:6443");
  CHECK(read->ca_pem == kKubeconfigCa);
  CHECK(read->client_cert_pem == kCert);
  CHECK(read->client_key_pem == kKey);
}

TEST_CASE("read_kubeconfig refuses what is not a usable kubeconfig, naming the file") {
  TempDir tmp;
  const std::string path = tmp.path() + "/config";
  auto check_bad = [&](const std::string& yaml, const std::string& words) {
    std::ofstream(path) << yaml;
    auto read = read_kubeconfig(path);
    INFO(yaml << " -> " << read.status().message());
    REQUIRE_FALSE(read.is_ok());
    CHECK(read.status().message().find(path) != std::string::npos);
    CHECK(read.status().message().find(words) != std::string::npos);
  };
  check_bad("{{{ not yaml", "not valid YAML");
  check_bad("just a string", "not a kubeconfig");
  check_bad("clusters: []\n", "no current-context");
  check_bad("current-context: x\n", "context \"x\" is not defined");
  check_bad(
      "current-context: x\ncontexts: [{name: x, context: {cluster: c, user: u}}]\n"
      "clusters: [{name: c, cluster: {server: \"https://h:1\"}}]\n",
      "user \"u\" is not defined");
  check_bad(
      "current-context: x\ncontexts: [{name: x, context: {cluster: c, user: u}}]\n"
      "clusters: [{name: c, cluster: {}}]\nusers: [{name: u, user: {}}]\n",
      "has no server");
  CHECK(read_kubeconfig(tmp.path() + "/missing").status().code() == Code::kNotFound);
}

}  // namespace
}  // namespace k3c::pki
