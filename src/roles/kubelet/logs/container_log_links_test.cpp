// The /var/log/containers links: made for containers whose log file exists below the pod
// logs root, named as upstream's, removed with their container; nothing else touched.
#include "roles/kubelet/logs/container_log_links.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "roles/kubelet/pods/labels.h"
#include "temp_dir.h"

namespace k3c::kubelet {
namespace {

namespace fs = std::filesystem;

TEST_CASE("log links follow the runtime's containers, and only ours are removed") {
  TempDir dir;
  const std::string root = dir.path() + "/pods";
  ContainerLogLinks links(root + "/");
  CHECK(links.dir() == dir.path() + "/containers");
  const std::string log = root + "/ns_web_u1/app/0.log";
  fs::create_directories(root + "/ns_web_u1/app");
  runtime::ContainerStatus c;
  c.id = "abc123";
  c.name = "app";
  c.log_path = log;
  c.labels = {{labels::kPodName, "web"}, {labels::kPodNamespace, "ns"}};
  runtime::ContainerStatus elsewhere = c;  // its log outside the root: never linked
  elsewhere.id = "def456";
  elsewhere.log_path = dir.path() + "/other.log";
  std::ofstream(elsewhere.log_path) << "";
  links.sync({c, elsewhere});
  CHECK_FALSE(fs::exists(links.dir()));  // no log file yet: no link
  std::ofstream(log) << "";
  fs::create_directories(links.dir());
  std::ofstream(links.dir() + "/someone-elses.log") << "";  // not ours
  links.sync({c, elsewhere});
  const std::string link = links.dir() + "/web_ns_app-abc123.log";
  REQUIRE(fs::is_symlink(link));
  CHECK(fs::read_symlink(link) == log);
  CHECK_FALSE(fs::exists(links.dir() + "/web_ns_app-def456.log"));
  links.sync({});  // the container went
  CHECK_FALSE(fs::exists(link));
  CHECK(fs::exists(links.dir() + "/someone-elses.log"));
}

}  // namespace
}  // namespace k3c::kubelet
