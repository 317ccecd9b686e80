// The volume manager over a temporary root (no tmpfs volumes: those mount, and a unit test
// never mounts): emptyDir, configMap refresh, hostPath, a bound hostPath PVC, subPath, the
// termination-log file, a missing ConfigMap, an unbound claim, teardown.
#include "roles/kubelet/volumes/volume_manager.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "client/in_process_client.h"
#include "roles/controllers/testing/fake_api.h"
#include "roles/kubelet/pods/testing/map_config_source.h"

namespace k3c::kubelet::volumes {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::string manager_read(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST_CASE("the volume manager sets up, refreshes and tears down a pod's volumes") {
  char tmpl[] = "/tmp/k3c-volmgr-XXXXXX";
  const std::string root = mkdtemp(tmpl);
  controllers::testing::FakeApi api;
  api.seed("/api/v1/namespaces/ns/persistentvolumeclaims",
           {{"metadata", {{"name", "data"}, {"namespace", "ns"}}},
            {"spec", {{"volumeName", "pv-1"}}},
            {"status", {{"phase", "Bound"}}}});
  api.seed("/api/v1/namespaces/ns/persistentvolumeclaims",
           {{"metadata", {{"name", "later"}, {"namespace", "ns"}}},
            {"spec", json::object()},
            {"status", {{"phase", "Pending"}}}});
  api.seed("/api/v1/persistentvolumes",
           {{"metadata", {{"name", "pv-1"}}},
            {"spec", {{"hostPath", {{"path", root + "/pv"}, {"type", "DirectoryOrCreate"}}}}}});
  client::InProcessClient client{[&](http::Request& r) { return api.handle(r); }, {}};
  client::EventRecorder recorder{client, "kubelet"};
  testing::MapConfigSource objects;
  objects.put_config_map("ns", "cfg", {{"mode", "slow"}});
  VolumeManager manager(root + "/agent", client, objects, recorder, NodeFacts{});

  json pod = {
      {"metadata", {{"name", "p"}, {"namespace", "ns"}, {"uid", "u1"}}},
      {"spec",
       {{"volumes",
         {{{"name", "scratch"}, {"emptyDir", json::object()}},
          {{"name", "cfg"}, {"configMap", {{"name", "cfg"}}}},
          {{"name", "host"}, {"hostPath", {{"path", root + "/h"}, {"type", "DirectoryOrCreate"}}}},
          {{"name", "claim"}, {"persistentVolumeClaim", {{"claimName", "data"}}}}}}}}};
  const json container = {{"name", "app"},
                          {"volumeMounts",
                           {{{"name", "scratch"}, {"mountPath", "/scratch"}},
                            {{"name", "scratch"}, {"mountPath", "/part"}, {"subPath", "a/b"}},
                            {{"name", "cfg"}, {"mountPath", "/cfg"}},
                            {{"name", "host"}, {"mountPath", "/host"}, {"readOnly", true}},
                            {{"name", "claim"}, {"mountPath", "/data"}}}}};
  auto mounts = manager.mounts(pod, container);
  REQUIRE(mounts.is_ok());
  REQUIRE(mounts->size() == 6);
  const std::string vols = root + "/agent/pods/u1/volumes";
  CHECK((*mounts)[0].host_path == vols + "/kubernetes.io~empty-dir/scratch");
  CHECK_FALSE((*mounts)[0].read_only);
  CHECK((*mounts)[1].host_path == fs::canonical(vols + "/kubernetes.io~empty-dir/scratch/a/b"));
  CHECK((*mounts)[2].host_path == vols + "/kubernetes.io~configmap/cfg");
  CHECK((*mounts)[2].read_only);
  CHECK(manager_read(vols + "/kubernetes.io~configmap/cfg/mode") == "slow");
  CHECK((*mounts)[3].host_path == root + "/h");
  CHECK((*mounts)[3].read_only);
  CHECK(fs::is_directory(root + "/h"));
  CHECK((*mounts)[4].host_path == root + "/pv");
  CHECK((*mounts)[5].container_path == "/dev/termination-log");
  CHECK((*mounts)[5].host_path == root + "/agent/pods/u1/containers/app/0.termination-log");
  // Each instance its own file; the one before it stays, older ones go.
  for (uint32_t attempt : {1u, 2u, 3u}) REQUIRE(manager.mounts(pod, container, attempt).is_ok());
  CHECK_FALSE(fs::exists(root + "/agent/pods/u1/containers/app/1.termination-log"));
  CHECK(fs::exists(root + "/agent/pods/u1/containers/app/2.termination-log"));
  CHECK(fs::exists(root + "/agent/pods/u1/containers/app/3.termination-log"));

  objects.put_config_map("ns", "cfg", {{"mode", "fast"}});
  manager.refresh(pod);
  CHECK(manager_read(vols + "/kubernetes.io~configmap/cfg/mode") == "fast");

  json missing = pod;
  missing["metadata"]["uid"] = "u2";
  missing["spec"]["volumes"] = {{{"name", "cfg"}, {"configMap", {{"name", "absent"}}}}};
  auto failed = manager.mounts(missing, {{"name", "app"}});
  CHECK(failed.status().message() ==
        "MountVolume.SetUp failed for volume \"cfg\" : configmap \"absent\" not found");
  json unbound = pod;
  unbound["spec"]["volumes"] = {
      {{"name", "c"}, {"persistentVolumeClaim", {{"claimName", "later"}}}}};
  CHECK(manager.mounts(unbound, {{"name", "app"}}).status().message() ==
        "MountVolume.SetUp failed for volume \"c\" : error processing PVC ns/later: PVC is not "
        "bound");
  CHECK(manager
            .mounts(pod,
                    {{"name", "app"}, {"volumeMounts", {{{"name", "nope"}, {"mountPath", "/x"}}}}})
            .status()
            .code() == Code::kInvalid);

  manager.remove_pod("u1");
  CHECK_FALSE(fs::exists(root + "/agent/pods/u1"));
  CHECK(fs::is_directory(root + "/h"));  // a hostPath is the host's, never removed
  manager.remove_pod("../..");           // not a uid: nothing happens
  CHECK(fs::exists(root));
  recorder.stop();
  fs::remove_all(root);
}

}  // namespace
}  // namespace k3c::kubelet::volumes
