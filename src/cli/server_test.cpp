// Tests for the pieces `k3c server` is made of: the data dir layout, the store role and the
// list of roles not built yet. The whole command runs in test/integration.
#include "cli/server.h"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <fstream>

#include "cli/data_dir.h"
#include "cli/store_role.h"
#include "temp_dir.h"

namespace k3c::cli {
namespace {

mode_t mode_of(const std::string& path) {
  struct stat info;
  REQUIRE(stat(path.c_str(), &info) == 0);
  REQUIRE(S_ISDIR(info.st_mode));
  return info.st_mode & 07777;
}

TEST_CASE("prepare_data_dir creates the layout with a private server dir") {
  TempDir dir;
  const std::string data = dir.path() + "/nested/data";
  REQUIRE(prepare_data_dir(data).is_ok());
  for (const char* sub : {"/server/db", "/server/tls", "/server/manifests", "/agent/images"}) {
    INFO(sub);
    mode_of(data + sub);
  }
  CHECK(mode_of(data + "/server") == 0700);
  // Run again over an existing tree whose server dir was loosened: it is tightened again.
  REQUIRE(chmod((data + "/server").c_str(), 0755) == 0);
  REQUIRE(prepare_data_dir(data).is_ok());
  CHECK(mode_of(data + "/server") == 0700);
}

TEST_CASE("prepare_data_dir reports what is in the way") {
  TempDir dir;
  std::ofstream(dir.path() + "/file") << "not a directory";
  Status status = prepare_data_dir(dir.path() + "/file/data");
  CHECK_FALSE(status.is_ok());
  CHECK_THAT(status.message(), Catch::Contains(dir.path() + "/file"));
}

TEST_CASE("The store role opens the datastore and closes it on stop") {
  TempDir dir;
  store::Options options;
  options.path = dir.path() + "/state.db";
  options.maintenance_interval = std::chrono::milliseconds(0);
  StoreRole role(options);
  CHECK(role.name() == "store");
  CHECK_FALSE(role.ready());
  CHECK(role.store() == nullptr);

  REQUIRE(role.start().is_ok());
  CHECK(role.ready());
  CHECK(role.up().is_set());
  REQUIRE(role.store() != nullptr);
  CHECK(role.store()->create("/registry/a", "1").is_ok());
  CHECK(std::ifstream(options.path).good());

  role.stop();
  CHECK_FALSE(role.ready());
  CHECK(role.store() == nullptr);
  role.stop();  // idempotent

  // The data survived the close: a second start sees it.
  StoreRole again(options);
  REQUIRE(again.start().is_ok());
  CHECK(again.store()->get("/registry/a")->value == "1");
  again.stop();
}

TEST_CASE("The store role fails to start, holding nothing, when it cannot open") {
  TempDir dir;
  store::Options options;
  options.path = dir.path() + "/no/such/dir/state.db";
  StoreRole role(options);
  CHECK_FALSE(role.start().is_ok());
  CHECK_FALSE(role.ready());
  CHECK_FALSE(role.up().is_set());
  role.stop();
}

TEST_CASE("store_options carries the path and the sync mode") {
  ServerConfig config;
  config.datastore_path = "/data/server/db/state.db";
  config.datastore_sync = DatastoreSync::kNormal;
  store::Options options = store_options(config);
  CHECK(options.path == "/data/server/db/state.db");
  CHECK(options.sync == store::SyncMode::kNormal);
}

TEST_CASE("roles_not_built lists what the config asks for and is missing") {
  ServerConfig config;
  CHECK(roles_not_built(config) == std::vector<std::string>{"network", "proxy", "dns"});
  config.disable_kube_proxy = true;
  config.disabled = {"coredns"};
  CHECK(roles_not_built(config) == std::vector<std::string>{"network"});
  config.disable_agent = true;
  CHECK(roles_not_built(config).empty());
}

}  // namespace
}  // namespace k3c::cli
