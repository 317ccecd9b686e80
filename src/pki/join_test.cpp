// The join protocol's shared pieces: the CA pin, Basic credentials, the cert+key answer.
#include <catch2/catch.hpp>

#include "core/base64.h"
#include "pki/pki.h"
#include "temp_dir.h"

namespace k3c::pki {
namespace {

ParsedToken token_for(std::string_view ca_pem, std::string password) {
  ParsedToken t;
  t.ca_hash = *ca_hash(ca_pem);
  t.username = "server";
  t.password = std::move(password);
  return t;
}

TEST_CASE("the CA pin accepts the CA the token names and refuses any other") {
  ParsedToken token = token_for("the CA", "secret");
  CHECK(verify_ca_hash(token, "the CA").is_ok());
  Status other = verify_ca_hash(token, "another CA");
  CHECK(other.code() == Code::kForbidden);
  CHECK(other.message().find(token.ca_hash) != std::string::npos);
  token.ca_hash.clear();  // a bare password pins nothing
  CHECK(verify_ca_hash(token, "another CA").is_ok());
}

TEST_CASE("Basic credentials from a token pass the server's check; others are refused") {
  ParsedToken server = token_for("ca", "s3cret");
  CHECK(check_basic_authorization(basic_authorization(server), server).is_ok());
  ParsedToken bare;
  bare.password = "s3cret";
  CHECK(basic_authorization(bare) == "Basic " + base64_encode("node:s3cret"));
  CHECK(check_basic_authorization(basic_authorization(bare), server).is_ok());
  for (std::string bad :
       {std::string(""), std::string("Bearer s3cret"), "Basic " + base64_encode("node:s3cre"),
        "Basic " + base64_encode("node:s3cret2"), std::string("Basic !!"),
        "Basic " + base64_encode("nocolon")}) {
    INFO(bad);
    CHECK(check_basic_authorization(bad, server).code() == Code::kUnauthorized);
  }
}

TEST_CASE("a cert and its key split apart; a missing or foreign key is refused") {
  TempDir tmp;
  PkiOptions options;
  options.tls_dir = tmp.path() + "/tls";
  auto pki = ensure_server_pki(options);
  REQUIRE(pki.is_ok());
  auto issued = issue_client_cert(pki->client_ca, {"system:node:a", {"system:nodes"}});
  REQUIRE(issued.is_ok());
  auto split = split_cert_and_key(issued->cert_pem + issued->key_pem);
  REQUIRE(split.is_ok());
  CHECK(split->cert_pem == issued->cert_pem);
  CHECK(split->key_pem == issued->key_pem);
  CHECK(split_cert_and_key(issued->cert_pem).status().code() == Code::kInvalid);
  CHECK(split_cert_and_key(issued->key_pem).status().code() == Code::kInvalid);
  CHECK(split_cert_and_key(issued->cert_pem + pki->admin.key_pem).status().code() ==
        Code::kInvalid);
}

TEST_CASE("random_hex and sha256_hex") {
  CHECK(random_hex(16)->size() == 32);
  CHECK(*random_hex(16) != *random_hex(16));
  CHECK(*sha256_hex("hello") == *ca_hash("hello"));
}

}  // namespace
}  // namespace k3c::pki
