// write_kubeconfig: the k3s shape, the base64 credentials, the mode, atomic replacement.
#include <sys/stat.h>
#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "core/base64.h"
#include "pki/pki.h"
#include "temp_dir.h"

namespace k3c::pki {
namespace {

unsigned mode_of(const std::string& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

std::string decoded(const YAML::Node& node) {
  std::optional<std::string> bytes = base64_decode(node.as<std::string>());
  REQUIRE(bytes.has_value());
  return *bytes;
}

const std::string kCa = "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n";
const std::string kCert = "-----BEGIN CERTIFICATE-----\nadmin\n-----END CERTIFICATE-----\n";
const std::string kKey = "-----BEGIN EC PRIVATE KEY-----\nkey!\n-----END EC PRIVATE KEY-----\n";

TEST_CASE("the kubeconfig has k3s's shape and the three credentials in base64") {
  TempDir tmp;
  std::string path = tmp.path() + "/etc/k3c/k3c.yaml";  // the parent does not exist yet
  REQUIRE(write_kubeconfig(path, 0600, "https://127.0.0.1:6443", kCa, kCert, kKey).is_ok());
  CHECK(mode_of(path) == 0600);

  YAML::Node config = YAML::LoadFile(path);
  CHECK(config["apiVersion"].as<std::string>() == "v1");
  CHECK(config["kind"].as<std::string>() == "Config");
  CHECK(config["current-context"].as<std::string>() == "default");
  const YAML::Node& cluster = config["clusters"][0];
  CHECK(cluster["name"].as<std::string>() == "default");
  CHECK(cluster["cluster"]["server"].as<std::string>() == "https://127.0.0.1:6443");
  CHECK(decoded(cluster["cluster"]["certificate-authority-data"]) == kCa);
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
  REQUIRE(write_kubeconfig(path, 0600, "https://k3c.example.com:6443", kCa, kCert, kKey).is_ok());
  CHECK(mode_of(path) == 0600);
  CHECK(YAML::LoadFile(path)["clusters"][0]["cluster"]["server"].as<std::string>() ==
        "https://k3c.example.com:6443");
  REQUIRE(write_kubeconfig(path, 0644, "https://k3c.example.com:6443", kCa, kCert, kKey).is_ok());
  CHECK(mode_of(path) == 0644);
  // No temporary files are left behind.
  CHECK(std::distance(std::filesystem::directory_iterator(tmp.path()),
                      std::filesystem::directory_iterator()) == 1);
}

TEST_CASE("a kubeconfig that cannot be written is an error naming the path") {
  TempDir tmp;
  std::string blocker = tmp.path() + "/file";
  std::ofstream(blocker) << "x";
  Status s =
      write_kubeconfig(blocker + "/k3c.yaml", 0600, "https://127.0.0.1:6443", kCa, kCert, kKey);
  REQUIRE_FALSE(s.is_ok());
  CHECK(s.message().find(blocker) != std::string::npos);
}

}  // namespace
}  // namespace k3c::pki
