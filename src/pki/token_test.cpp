// The k3s token: the server's token file, format and parse round trips, malformed input.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <regex>
#include <sstream>

#include "pki/pki.h"
#include "temp_dir.h"

namespace k3c::pki {
namespace {

std::string token_slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const std::string kTokenCa = "-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n";
const std::string kHash(64, 'a');

TEST_CASE("ca_hash is the hex SHA-256 of the PEM bytes") {
  // sha256("hello"), from any sha256sum.
  CHECK(*ca_hash("hello") == "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
}

TEST_CASE("the server token is created once, mode 0600, in K10 form, then reused") {
  TempDir tmp;
  std::string path = tmp.path() + "/server/token";
  auto token = ensure_server_token(path, kTokenCa);
  REQUIRE(token.is_ok());
  CHECK(std::regex_match(*token, std::regex("K10[0-9a-f]{64}::server:[0-9a-f]{32}")));
  CHECK(token->substr(3, 64) == *ca_hash(kTokenCa));
  CHECK(token_slurp(path) == *token + "\n");
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0600);

  CHECK(*ensure_server_token(path, kTokenCa) == *token);
  TempDir other;
  CHECK(*ensure_server_token(other.path() + "/token", kTokenCa) != *token);  // random passwords

  SECTION("a new CA keeps the credentials and updates the hash") {
    std::string ca2 = kTokenCa + "\n";
    auto rewritten = ensure_server_token(path, ca2);
    REQUIRE(rewritten.is_ok());
    CHECK(rewritten->substr(3, 64) == *ca_hash(ca2));
    CHECK(rewritten->substr(67) == token->substr(67));
    CHECK(token_slurp(path) == *rewritten + "\n");
  }
  SECTION("a bare password written by hand becomes the server's password") {
    std::ofstream(path) << "  hunter2\n";
    auto full = ensure_server_token(path, kTokenCa);
    REQUIRE(full.is_ok());
    CHECK(*full == "K10" + *ca_hash(kTokenCa) + "::server:hunter2");
  }
  SECTION("a garbled token file is an error naming it") {
    std::ofstream(path) << "K10abc::server:pw\n";
    auto bad = ensure_server_token(path, kTokenCa);
    REQUIRE_FALSE(bad.is_ok());
    CHECK(bad.status().message().find(path + ": token:") == 0);
  }
}

TEST_CASE("parse_token round-trips the full form and accepts a bare password") {
  auto full = format_token(kTokenCa, "server", "s3cret:with:colons");
  REQUIRE(full.is_ok());
  auto parsed = parse_token(*full);
  REQUIRE(parsed.is_ok());
  CHECK(parsed->ca_hash == *ca_hash(kTokenCa));
  CHECK(parsed->username == "server");
  CHECK(parsed->password == "s3cret:with:colons");

  auto bare = parse_token("mypassword");
  REQUIRE(bare.is_ok());
  CHECK(bare->ca_hash.empty());
  CHECK(bare->username.empty());
  CHECK(bare->password == "mypassword");

  auto no_hash = parse_token("K10::node:pw");
  REQUIRE(no_hash.is_ok());
  CHECK(no_hash->ca_hash.empty());
  CHECK(no_hash->username == "node");
}

TEST_CASE("parse_token rejects garbage with a clear error") {
  for (const std::string& bad : std::vector<std::string>{
           "", "K10" + kHash.substr(1) + "::server:pw",   // 63 hex digits
           "K10" + std::string(64, 'g') + "::server:pw",  // not hex
           "K10" + kHash + "::server:",                   // no password
           "K10" + kHash + "::nocolon", "K10nocreds", "pass word", "tab\tinside"}) {
    INFO(bad);
    auto parsed = parse_token(bad);
    REQUIRE_FALSE(parsed.is_ok());
    CHECK(parsed.status().code() == Code::kInvalid);
    CHECK(parsed.status().message().starts_with("token: "));
  }
  auto bootstrap = parse_token("K10" + kHash + "::abcdef.0123456789abcdef");
  CHECK(bootstrap.status().code() == Code::kNotImplemented);
  CHECK(parse_token("abcdef.0123456789abcdef").status().code() == Code::kNotImplemented);
}

}  // namespace
}  // namespace k3c::pki
