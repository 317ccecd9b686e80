// The image store end to end in-process: import of both formats and every compression,
// listing, lookup by short name and id, unpack into a shared snapshot, removal with garbage
// collection, and bad tarballs leaving nothing behind.
#include "runtime/image_store.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "images/test_images.h"
#include "runtime/files.h"
#include "runtime/internal/import_plan.h"
#include "temp_dir.h"

namespace k3c::runtime {
namespace {

using namespace k3c::testing;

TestImage two_layer_image(const std::string& tag) {
  TestImage image;
  image.repo_tag = tag;
  image.entrypoint = {"/bin/tool"};
  image.user = "1000";
  image.working_dir = "/work";
  image.layers = {
      {dir("bin"), file("bin/tool", "v1", 0755), file("etc/gone", "x"), file("opq/lower", "l")},
      {file("etc/.wh.gone", ""), dir("opq"), file("opq/.wh..wh..opq", ""), file("opq/upper", "u"),
       hardlink("bin/tool-link", "bin/tool")}};
  return image;
}

struct StoreFixture {
  TempDir dir;
  std::unique_ptr<ImageStore> store = std::move(ImageStore::open(dir.path() + "/data")).value();

  std::string write(const std::string& name, const std::string& bytes) const {
    const std::string path = dir.path() + "/" + name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  size_t blob_count() const { return list_dir(store->root() + "/blobs/sha256")->size(); }
  size_t tmp_count() const { return list_dir(store->root() + "/tmp")->size(); }
};

TEST_CASE("docker-archive and OCI layout tarballs import, list, unpack and remove") {
  struct Case {
    const char* name;
    bool oci;
    Compression outer;
    Compression layers;
  };
  for (const Case& c : {Case{"docker.tar", false, Compression::kNone, Compression::kNone},
                        Case{"docker.tar.gz", false, Compression::kGzip, Compression::kGzip},
                        Case{"oci.tar", true, Compression::kNone, Compression::kGzip},
                        Case{"oci.tar.zst", true, Compression::kZstd, Compression::kZstd}}) {
    INFO(c.name);
    StoreFixture f;
    TestImage image = two_layer_image("example:1");
    image.layer_compression = c.layers;
    const ArchiveFiles files = c.oci ? oci_layout_files(image) : docker_archive_files(image);
    auto imported = f.store->import_file(f.write(c.name, tar_of(files, c.outer)));
    REQUIRE(imported.is_ok());
    REQUIRE(imported->size() == 1);
    const ImageRecord& record = imported->front();
    CHECK(record.references == std::vector<std::string>{"docker.io/library/example:1"});
    CHECK(record.config.entrypoint == std::vector<std::string>{"/bin/tool"});
    CHECK(record.config.cmd == std::vector<std::string>{"sh"});
    CHECK(record.config.user == "1000");
    CHECK(record.config.working_dir == "/work");
    CHECK(record.config.exposed_ports == std::vector<std::string>{"8080/tcp"});
    CHECK(record.config.labels.at("test") == "yes");
    CHECK(record.os == "linux");
    CHECK(record.layers.size() == 2);
    CHECK(f.store->find("example:1")->id == record.id);
    CHECK(f.store->find(record.id.substr(7, 12))->id == record.id);
    CHECK(f.store->list()->size() == 1);
    CHECK(f.blob_count() == 4);  // config, manifest, two layers
    CHECK(f.tmp_count() == 0);

    auto root = f.store->unpack("example:1");
    REQUIRE(root.is_ok());
    CHECK(*read_file(*root + "/bin/tool", 10) == "v1");
    struct stat tool, link;
    REQUIRE(stat((*root + "/bin/tool").c_str(), &tool) == 0);
    REQUIRE(stat((*root + "/bin/tool-link").c_str(), &link) == 0);
    CHECK(tool.st_ino == link.st_ino);
    CHECK(read_file(*root + "/etc/gone", 10).status().code() == Code::kNotFound);
    CHECK(*list_dir(*root + "/opq") == std::vector<std::string>{"upper"});
    CHECK(*f.store->unpack(record.id) == *root);  // unpacked once, shared
    // Every container's mount points are in the snapshot, so containers do not create them.
    for (const char* dir : {"/proc", "/sys", "/dev", "/etc"}) {
      struct stat st;
      REQUIRE(lstat((*root + dir).c_str(), &st) == 0);
      CHECK(S_ISDIR(st.st_mode));
    }
    for (const char* file : {"/etc/hosts", "/etc/hostname", "/etc/resolv.conf"})
      CHECK(*read_file(*root + file, 10) == "");

    auto removed = f.store->remove("docker.io/library/example:1");
    REQUIRE(removed.is_ok());
    CHECK(*removed == std::vector<std::string>{"docker.io/library/example:1"});
    CHECK(f.store->list()->empty());
    CHECK(f.blob_count() == 0);
    CHECK(list_dir(f.store->root() + "/snapshots")->empty());
    CHECK(f.store->find("example:1").status().code() == Code::kNotFound);
  }
}

TEST_CASE("A tag imported again moves to the new image; images sharing layers share blobs") {
  StoreFixture f;
  TestImage one = two_layer_image("app:latest");
  REQUIRE(f.store->import_file(f.write("1.tar", tar_of(docker_archive_files(one), {}))).is_ok());
  TestImage two = one;
  two.cmd = {"other"};
  REQUIRE(f.store->import_file(f.write("2.tar", tar_of(docker_archive_files(two), {}))).is_ok());
  auto images = f.store->list();
  REQUIRE(images->size() == 2);
  CHECK(f.store->find("app")->config.cmd == std::vector<std::string>{"other"});
  int unnamed = 0;
  for (const ImageRecord& image : *images) unnamed += image.references.empty();
  CHECK(unnamed == 1);
  CHECK(f.blob_count() == 6);  // two configs, two manifests, the two shared layers
}

TEST_CASE("The airgap directory imports every tarball and reports each bad one") {
  StoreFixture f;
  const std::string images = f.dir.path() + "/data/agent/images";
  REQUIRE(make_dirs(images).is_ok());
  std::ofstream(images + "/a.tar", std::ios::binary)
      << tar_of(docker_archive_files(two_layer_image("a:1")), {});
  std::ofstream(images + "/b.tar.zst", std::ios::binary)
      << tar_of(oci_layout_files(two_layer_image("b:1")), Compression::kZstd);
  std::ofstream(images + "/broken.tar.gz") << "not gzip";
  std::ofstream(images + "/notes.txt") << "ignored";
  auto results = import_airgap_images(*f.store, images);
  REQUIRE(results.size() == 3);
  CHECK(results[0].status.is_ok());
  CHECK(results[0].references == std::vector<std::string>{"docker.io/library/a:1"});
  CHECK(results[1].status.is_ok());
  CHECK_FALSE(results[2].status.is_ok());
  // Same content, so the same image (one id) under both names.
  REQUIRE(f.store->list()->size() == 1);
  CHECK(f.store->list()->front().references ==
        std::vector<std::string>{"docker.io/library/a:1", "docker.io/library/b:1"});
}

TEST_CASE("Bad tarballs are refused with a clear error and leave nothing behind") {
  const TestImage image = two_layer_image("bad:1");
  const ArchiveFiles docker = docker_archive_files(image);
  const ArchiveFiles oci = oci_layout_files(image);
  const std::string layer0 = docker[0].first;  // "<hex>/layer.tar"
  struct Case {
    const char* name;
    std::string bytes;
    const char* expected;
  };
  std::vector<Case> cases;
  {
    std::string truncated = tar_of(docker, Compression::kNone);
    truncated.resize(truncated.size() / 2);
    cases.push_back({"truncated tar", truncated, "runcated"});
    std::string truncated_gz = tar_of(oci, Compression::kGzip);
    truncated_gz.resize(truncated_gz.size() / 2);
    cases.push_back({"truncated gzip", truncated_gz, ""});
  }
  {
    ArchiveFiles files = oci;
    files[1].second[10] ^= 1;  // the first layer blob, named by its digest
    cases.push_back({"OCI blob digest mismatch", tar_of(files, {}), "digest mismatch"});
  }
  {
    ArchiveFiles files = docker;
    files[0].second = make_tar({file("other", "x")}, Compression::kNone);
    cases.push_back({"layer not matching diff_id", tar_of(files, {}), "diff_id"});
  }
  {
    ArchiveFiles files = docker;
    files.erase(files.begin());
    cases.push_back(
        {"manifest names a missing layer", tar_of(files, {}), "missing from the archive"});
  }
  {
    ArchiveFiles files = oci;
    files.erase(files.begin() + 2);  // the second layer blob
    cases.push_back({"OCI missing blob", tar_of(files, {}), "missing from the archive"});
  }
  {
    ArchiveFiles files = docker;
    files.emplace_back("../escape", "x");
    cases.push_back({"path traversal entry", tar_of(files, {}), "climbs out"});
  }
  {
    ArchiveFiles files = docker;
    replace_file(files, "manifest.json", "{not json");
    cases.push_back({"bad manifest.json", tar_of(files, {}), "manifest.json"});
  }
  cases.push_back({"not an image", tar_of({{"hello.txt", "hi"}}, {}), "not an image archive"});
  cases.push_back({"not a tar at all", "garbage bytes", ""});

  for (const Case& c : cases) {
    INFO(c.name);
    StoreFixture f;
    auto imported = f.store->import_file(f.write("bad.tar", c.bytes));
    REQUIRE_FALSE(imported.is_ok());
    CHECK(imported.status().code() == Code::kInvalid);
    CHECK_THAT(imported.status().message(), Catch::Contains(c.expected));
    CHECK(f.store->list()->empty());
    CHECK(f.blob_count() == 0);
    CHECK(f.tmp_count() == 0);
  }
  StoreFixture f;
  CHECK(f.store->import_file(f.dir.path() + "/missing.tar").status().code() == Code::kNotFound);
}

TEST_CASE("A layer damaged on disk after import is not used") {
  StoreFixture f;
  auto imported = f.store->import_file(
      f.write("i.tar", tar_of(docker_archive_files(two_layer_image("d:1")), {})));
  REQUIRE(imported.is_ok());
  const std::string layer =
      f.store->root() + "/blobs/sha256/" + imported->front().layers[1].digest.substr(7);
  std::string bytes = *read_file(layer, 1 << 20);
  bytes[600] ^= 1;
  std::ofstream(layer, std::ios::binary) << bytes;
  auto root = f.store->unpack("d:1");
  REQUIRE_FALSE(root.is_ok());
  CHECK(root.status().code() == Code::kCorrupt);
  CHECK(list_dir(f.store->root() + "/snapshots")->empty());
}

TEST_CASE("Chain ids follow the OCI image spec") {
  const std::string a = "sha256:" + std::string(64, 'a');
  const std::string b = "sha256:" + std::string(64, 'b');
  CHECK(chain_id({a}) == a);
  CHECK(chain_id({a, b}) == sha256_of(a + " " + b));
  CHECK(chain_id({}).empty());
}

}  // namespace
}  // namespace k3c::runtime

namespace k3c::runtime {
namespace {

using namespace k3c::testing;

TEST_CASE("docker save's symlinked repeated layers are followed") {
  StoreFixture f;
  TestImage image;
  image.repo_tag = "twice:1";
  image.layers = {{file("a", "1")}, {file("a", "1")}};  // identical layers, one blob
  ArchiveFiles files = docker_archive_files(image);
  const std::string layer_path = files[0].first;
  files.erase(files.begin() + 1);  // the duplicate
  auto manifest = nlohmann::json::parse(files.back().second);
  manifest[0]["Layers"][1] = "again/layer.tar";
  files.back().second = manifest.dump();
  std::vector<TarEntry> entries;
  for (const auto& [path, bytes] : files) entries.push_back(file(path, bytes));
  entries.push_back(symlink("again/layer.tar", "../" + layer_path));
  auto imported = f.store->import_file(f.write("twice.tar", make_tar(entries, {})));
  REQUIRE(imported.is_ok());
  CHECK(imported->front().layers.size() == 2);
  CHECK(*read_file(*f.store->unpack("twice:1") + "/a", 10) == "1");
}

TEST_CASE("An OCI index with several platforms imports the host's") {
  StoreFixture f;
  TestImage image = two_layer_image("multi:1");
  image.architecture = internal::host_platform().architecture;
  ArchiveFiles files = oci_layout_files(image);
  const nlohmann::json top = nlohmann::json::parse(files.back().second)["manifests"][0];
  nlohmann::json host = top;
  host.erase("annotations");
  host["platform"] = {{"os", "linux"}, {"architecture", image.architecture}};
  nlohmann::json other = {{"mediaType", "application/vnd.oci.image.manifest.v1+json"},
                          {"digest", "sha256:" + std::string(64, '0')},  // not in the archive
                          {"size", 10},
                          {"platform", {{"os", "linux"}, {"architecture", "s390x"}}}};
  const std::string nested = nlohmann::json{
      {"schemaVersion", 2},
      {"mediaType", "application/vnd.oci.image.index.v1+json"},
      {"manifests",
       {other, host}}}.dump();
  files.insert(files.end() - 1, {"blobs/sha256/" + sha256_hex(nested), nested});
  nlohmann::json index_entry = {{"mediaType", "application/vnd.oci.image.index.v1+json"},
                                {"digest", "sha256:" + sha256_hex(nested)},
                                {"size", nested.size()},
                                {"annotations", top["annotations"]}};
  files.back().second = nlohmann::json{{"schemaVersion", 2}, {"manifests", {index_entry}}}.dump();
  auto imported = f.store->import_file(f.write("multi.tar", tar_of(files, {})));
  INFO(imported.status().message());
  REQUIRE(imported.is_ok());
  CHECK(imported->front().references == std::vector<std::string>{"docker.io/library/multi:1"});
  CHECK(imported->front().manifest_digest == top["digest"]);
}

}  // namespace
}  // namespace k3c::runtime
