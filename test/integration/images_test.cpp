// Integration tests of `k3c images`: a real image made during the test from Debian's
// busybox-static (/bin/busybox; nothing is downloaded), written as docker-archive and as OCI
// layout tarballs, imported, listed, unpacked (and the unpacked busybox run), removed; and
// each kind of bad tarball refused with a clear message and nothing left behind.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "images/test_images.h"
#include "run_command.h"
#include "server_sandbox.h"

namespace k3c {
namespace {

using namespace k3c::testing;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// busybox-static with a symlink and a hard link to it, a file and an opaque directory's
// lower content that the second layer (gzip) removes with a whiteout and an opaque marker.
TestImage busybox_image(const std::string& busybox) {
  TestImage image;
  image.repo_tag = "busybox:test";
  image.cmd = {"sh"};
  image.layers = {{dir("bin"), file("bin/busybox", busybox, 0755), symlink("bin/sh", "busybox"),
                   hardlink("bin/ls", "bin/busybox"), file("etc/removed", "old"),
                   file("etc/kept", "kept"), file("data/lower", "lower")},
                  {file("etc/.wh.removed", ""), dir("data"), file("data/.wh..wh..opq", ""),
                   file("data/upper", "upper")}};
  image.layer_compression = Compression::kGzip;
  return image;
}

struct ImagesBox {
  Sandbox box;
  std::string write(const std::string& name, const std::string& bytes) const {
    std::ofstream(box.path(name), std::ios::binary) << bytes;
    return box.path(name);
  }
  Finished images(std::vector<std::string> args) const {
    std::vector<std::string> argv = {K3C_BINARY, "images", "-d", box.data_dir()};
    argv.insert(argv.end(), args.begin(), args.end());
    return box.run(argv);
  }
};

TEST_CASE("A busybox image imports from docker-archive and OCI layout, unpacks and runs") {
  const std::string busybox = slurp("/bin/busybox");
  REQUIRE_FALSE(busybox.empty());  // scripts/install-deps.sh installs busybox-static
  const TestImage image = busybox_image(busybox);
  struct Case {
    const char* file;
    bool oci;
    Compression outer;
  };
  for (const Case& c : {Case{"busybox.tar", false, Compression::kNone},
                        Case{"busybox-oci.tar.zst", true, Compression::kZstd}}) {
    INFO(c.file);
    ImagesBox b;
    const ArchiveFiles files = c.oci ? oci_layout_files(image) : docker_archive_files(image);
    const std::string path = b.write(c.file, tar_of(files, c.outer));

    Finished imported = b.images({"import", path});
    INFO(imported.err);
    REQUIRE(imported.exit_code == 0);
    CHECK_THAT(imported.out, Catch::StartsWith("imported docker.io/library/busybox:test sha256:"));

    Finished ls = b.images({"ls"});
    REQUIRE(ls.exit_code == 0);
    CHECK_THAT(ls.out,
               Catch::Matches("REPOSITORY +TAG +IMAGE ID +SIZE\n"
                              "docker\\.io/library/busybox +test +[0-9a-f]{13} +[0-9.]+MB\n"));

    Finished unpacked = b.images({"unpack", "busybox:test"});
    REQUIRE(unpacked.exit_code == 0);
    const std::string root = unpacked.out.substr(0, unpacked.out.size() - 1);
    CHECK_THAT(root, Catch::StartsWith(b.box.data_dir() + "/agent/image-store/snapshots/"));
    CHECK(slurp(root + "/bin/busybox") == busybox);
    CommandResult hello = run_command({root + "/bin/busybox", "echo", "hello from the image"});
    CHECK(hello.out == "hello from the image\n");
    char target[32] = {};
    CHECK(readlink((root + "/bin/sh").c_str(), target, sizeof target - 1) == 7);
    CHECK(std::string(target) == "busybox");
    struct stat bb, ls_link;
    REQUIRE(stat((root + "/bin/busybox").c_str(), &bb) == 0);
    REQUIRE(stat((root + "/bin/ls").c_str(), &ls_link) == 0);
    CHECK(bb.st_ino == ls_link.st_ino);
    CHECK((bb.st_mode & 0777) == 0755);
    CHECK_FALSE(exists(root + "/etc/removed"));  // whiteout in the upper layer
    CHECK(slurp(root + "/etc/kept") == "kept");
    CHECK_FALSE(exists(root + "/data/lower"));  // opaque directory in the upper layer
    CHECK(slurp(root + "/data/upper") == "upper");
    // A second unpack reuses the snapshot.
    CHECK(b.images({"unpack", "docker.io/library/busybox:test"}).out == unpacked.out);

    Finished rm = b.images({"rm", "busybox:test"});
    CHECK(rm.exit_code == 0);
    CHECK(rm.out == "Deleted: docker.io/library/busybox:test\n");
    CHECK_FALSE(exists(root));
    CHECK(b.images({"ls"}).out == "REPOSITORY   TAG   IMAGE ID   SIZE\n");
    Finished again = b.images({"rm", "busybox:test"});
    CHECK(again.exit_code == 1);
    CHECK_THAT(again.err, Catch::Contains("image \"busybox:test\" not found"));
  }
}

TEST_CASE("Bad image tarballs exit 1 with the reason and import nothing") {
  const TestImage image = busybox_image("#!/bin/sh\n");
  const ArchiveFiles docker = docker_archive_files(image);
  const ArchiveFiles oci = oci_layout_files(image);
  struct Case {
    std::string name;
    std::string bytes;
    std::string expected;
  };
  std::vector<Case> cases;
  std::string truncated = tar_of(docker, Compression::kNone);
  truncated.resize(truncated.size() * 2 / 3);
  cases.push_back({"truncated.tar", truncated, "runcated"});
  ArchiveFiles bad_digest = oci;
  bad_digest[1].second[20] ^= 1;
  cases.push_back({"bad-digest.tar", tar_of(bad_digest, {}), "digest mismatch"});
  ArchiveFiles missing_layer = docker;
  missing_layer.erase(missing_layer.begin() + 1);
  cases.push_back({"missing-layer.tar", tar_of(missing_layer, {}), "missing from the archive"});
  ArchiveFiles missing_blob = oci;
  missing_blob.erase(missing_blob.begin() + 3);  // the config blob
  cases.push_back({"missing-blob.tar", tar_of(missing_blob, {}), "missing from the archive"});
  ArchiveFiles escaping = docker;
  escaping.emplace_back("../../etc/k3c-escape", "x");
  cases.push_back({"escape.tar", tar_of(escaping, {}), "climbs out"});
  ArchiveFiles escaping_layer = docker;
  escaping_layer[0].second = make_tar({file("../../escape", "x")}, Compression::kNone);
  cases.push_back({"escape-layer.tar", tar_of(escaping_layer, {}), "diff_id"});

  for (const Case& c : cases) {
    INFO(c.name);
    ImagesBox b;
    Finished imported = b.images({"import", b.write(c.name, c.bytes)});
    CHECK(imported.exit_code == 1);
    CHECK_THAT(imported.err,
               Catch::StartsWith("k3c images import: ") && Catch::Contains(c.expected));
    CHECK(b.images({"ls"}).out == "REPOSITORY   TAG   IMAGE ID   SIZE\n");
    CHECK_FALSE(exists("/etc/k3c-escape"));
  }
  ImagesBox b;
  Finished missing = b.images({"import", b.box.path("no-such.tar")});
  CHECK(missing.exit_code == 1);
  CHECK_THAT(missing.err, Catch::Contains("no-such.tar: No such file or directory"));
}

TEST_CASE("A layer that escapes is refused at unpack and leaves no snapshot") {
  // The config's diff_id is computed from the hostile layer, so import accepts it (it is
  // well-formed); unpacking must refuse it.
  TestImage image;
  image.repo_tag = "evil:1";
  image.layers = {{file("ok", "1"), file("../../../escape", "x")}};
  ImagesBox b;
  REQUIRE(b.images({"import", b.write("evil.tar", tar_of(docker_archive_files(image), {}))})
              .exit_code == 0);
  Finished unpacked = b.images({"unpack", "evil:1"});
  CHECK(unpacked.exit_code == 1);
  CHECK_THAT(unpacked.err, Catch::Contains("climbs out"));
  CHECK(exists(b.box.data_dir() + "/agent/image-store/snapshots"));
  CHECK(run_command({"sh", "-c", "ls -A " + b.box.data_dir() + "/agent/image-store/snapshots"})
            .out.empty());
}

}  // namespace
}  // namespace k3c
