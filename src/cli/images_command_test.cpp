// `k3c images`: the ls table, sizes, and the answers that need no image store.
#include "cli/images_command.h"

#include <catch2/catch.hpp>
#include <fstream>

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
  // Digest references of pulled images show only for images without a tag, as crictl.
  runtime::ImageRecord pulled = busybox;
  pulled.references = {"127.0.0.1:5000/test/busybox:1",
                       "127.0.0.1:5000/test/busybox@sha256:" + std::string(64, 'c')};
  runtime::ImageRecord by_digest = unnamed;
  by_digest.references = {"127.0.0.1:5000/test/other@sha256:" + std::string(64, 'd')};
  CHECK(image_table({pulled, by_digest}) ==
        "REPOSITORY                    TAG      IMAGE ID        SIZE\n"
        "127.0.0.1:5000/test/busybox   1        bbbbbbbbbbbbb   2.22MB\n"
        "127.0.0.1:5000/test/other     <none>   aaaaaaaaaaaaa   1.5kB\n");
}

TEST_CASE(
    "pull reports bad registries.yaml, bad references and dead registries; usage errors exit 1") {
  TempDir dir;
  Environment env;
  env.variables["HOME"] = dir.path();
  const std::string yaml = dir.path() + "/registries.yaml";
  std::ofstream(yaml) << "mirrors:\n  docker.io:\n    endpoint: https://x\n";
  CommandOutcome bad_yaml = run_images({"pull", "--private-registry", yaml, "busybox"}, env);
  CHECK(bad_yaml.exit_code == 1);
  CHECK(bad_yaml.err ==
        "k3c images pull: " + yaml + ": mirrors.docker.io.endpoint: must be a list of URLs\n");
  // Nothing listens on port 1 of the loopback: refused at once, nothing leaves the machine.
  CommandOutcome refused = run_images(
      {"pull", "--private-registry", dir.path() + "/none.yaml", "127.0.0.1:1/x/y:1"}, env);
  CHECK(refused.exit_code == 1);
  CHECK_THAT(refused.err, Catch::StartsWith("k3c images pull: failed to pull and unpack image "
                                            "\"127.0.0.1:1/x/y:1\": failed to resolve reference "
                                            "\"127.0.0.1:1/x/y:1\": failed to do request: GET "
                                            "http://127.0.0.1:1/v2/x/y/manifests/1: dial tcp"));
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
