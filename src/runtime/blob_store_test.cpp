// The content-addressed blob store: what is stored is what its name says, or nothing.
#include "runtime/blob_store.h"

#include <catch2/catch.hpp>
#include <fstream>

#include "runtime/files.h"
#include "temp_dir.h"

namespace k3c::runtime {
namespace {

TEST_CASE("sha256 digests are OpenSSL's and checked strictly") {
  CHECK(sha256_of("") == "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(check_digest(sha256_of("x"), "d").is_ok());
  CHECK_FALSE(check_digest("sha256:ABC", "d").is_ok());
  CHECK_FALSE(check_digest("sha512:" + std::string(64, 'a'), "d").is_ok());
}

TEST_CASE("A blob is stored under its sha256 and read back verified") {
  TempDir dir;
  auto store = BlobStore::open(dir.path());
  REQUIRE(store.is_ok());
  Result<std::string> digest = (*store)->put("hello");
  REQUIRE(digest.is_ok());
  CHECK(*digest == sha256_of("hello"));
  CHECK((*store)->has(*digest));
  CHECK((*store)->size_of(*digest) == 5);
  CHECK(*(*store)->read(*digest, 100) == "hello");
  // Damage on disk is noticed when the blob is read.
  std::ofstream((*store)->path_of(*digest)) << "hellO";
  CHECK((*store)->read(*digest, 100).status().code() == Code::kCorrupt);
}

TEST_CASE("A blob whose content does not match the expected digest is never stored") {
  TempDir dir;
  auto store = BlobStore::open(dir.path());
  REQUIRE(store.is_ok());
  auto writer = (*store)->writer();
  REQUIRE(writer.is_ok());
  REQUIRE((*writer)->write("abc", 3).is_ok());
  REQUIRE((*writer)->finish().is_ok());
  const std::string wrong = sha256_of("abd");
  Status status = (*writer)->commit(wrong);
  CHECK(status.code() == Code::kInvalid);
  CHECK_THAT(status.message(), Catch::Contains("digest mismatch"));
  writer->reset();
  CHECK_FALSE((*store)->has(wrong));
  CHECK_FALSE((*store)->has(sha256_of("abc")));
  CHECK((*store)->list()->empty());
  CHECK(list_dir(dir.path() + "/tmp")->empty());  // the temp file went too
}

TEST_CASE("Atomic writes replace the whole file") {
  TempDir dir;
  const std::string path = dir.path() + "/f.json";
  REQUIRE(write_file_atomic(path, "one").is_ok());
  REQUIRE(write_file_atomic(path, "two").is_ok());
  CHECK(*read_file(path, 10) == "two");
  CHECK(read_file(path, 2).status().code() == Code::kInvalid);
  CHECK(*list_dir(dir.path()) == std::vector<std::string>{"f.json"});
}

}  // namespace
}  // namespace k3c::runtime
