// `k3c images`: the ls table, sizes, and the answers that need no image store.
#include "cli/images_command.h"

#include <catch2/catch.hpp>

#include "temp_dir.h"

namespace k3c::cli {
namespace {

TEST_CASE("Sizes print as crictl prints them") {
  CHECK(human_size(0) == "0B");
  CHECK(human_size(999) == "999B");
  CHECK(human_size(1500) == "1.5kB");
  CHECK(human_size(2217000) == "2.22MB");
  CHECK(human_size(1000000000) == "1GB");
  CHECK(human_size(999999) == "1MB");
}

TEST_CASE("The ls table has one row per reference, sorted, and <none> for unnamed images") {
  runtime::ImageRecord busybox;
  busybox.id = "sha256:" + std::string(64, 'b');
  busybox.references = {"docker.io/library/busybox:latest", "localhost:5000/tools/bb:1.36"};
  busybox.size = 2217000;
  runtime::ImageRecord unnamed;
  unnamed.id = "sha256:" + std::string(64, 'a');
  unnamed.size = 1500;
  CHECK(image_table({busybox, unnamed}) ==
        "REPOSITORY                  TAG      IMAGE ID        SIZE\n"
        "<none>                      <none>   aaaaaaaaaaaaa   1.5kB\n"
        "docker.io/library/busybox   latest   bbbbbbbbbbbbb   2.22MB\n"
        "localhost:5000/tools/bb     1.36     bbbbbbbbbbbbb   2.22MB\n");
}

TEST_CASE("pull answers not implemented; usage errors exit 1") {
  TempDir dir;
  Environment env;
  env.variables["HOME"] = dir.path();
  CommandOutcome pull = run_images({"pull", "busybox"}, env);
  CHECK(pull.exit_code == 1);
  CHECK_THAT(pull.err, Catch::Contains("not implemented yet"));
  CommandOutcome bad_ref = run_images({"pull", "Not/Valid"}, env);
  CHECK(bad_ref.exit_code == 1);
  CHECK_THAT(bad_ref.err, Catch::Contains("invalid image reference"));
  CHECK(run_images({}, env).exit_code == 1);
  CHECK(run_images({"rm"}, env).exit_code == 1);
  CommandOutcome help = run_images({"--help"}, env);
  CHECK(help.exit_code == 0);
  CHECK_THAT(help.out, Catch::Contains("import") && Catch::Contains("unpack"));
}

}  // namespace
}  // namespace k3c::cli
