// Pods that cannot start, through the real kubectl 1.33 against `k3c server` in namespaces of
// its own (pod_session.h; root only): an image in a private registry (Debian's
// docker-registry with htpasswd auth, run in the server's network namespace on its loopback)
// is ErrImagePull / ImagePullBackOff with the registry's answer until the pod names an
// imagePullSecret; runAsNonRoot over an image that runs as root, an image USER missing from
// the image's passwd file, and a hostPath of the wrong type, give upstream's reasons and
// messages; once deleted, nothing of them is left behind. Seccomp Localhost profiles: one
// read from the kubelet's root-dir confines the container and its execs; a missing one is a
// CreateContainerError.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "pod_session.h"
#include "registry_support.h"

namespace k3c {
namespace {

using namespace std::chrono_literals;

std::string skip_reason() { return pods_skip_reason("integration.pods_input"); }

std::string pod_manifest(const std::string& name, const std::string& image,
                         const std::string& extra_spec = "") {
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
         "}\nspec:\n  restartPolicy: Never\n" + extra_spec +
         "  containers:\n  - name: app\n    image: \"" + image +
         "\"\n    command: [busybox, cat, /etc/motd]\n";
}

}  // namespace

TEST_CASE(
    "a private registry's image: ImagePullBackOff without credentials, then imagePullSecrets") {
  if (!skip_reason().empty()) return;
  Sandbox box;
  PodSession p(box);
  const std::string netns = "/proc/" + std::to_string(p.s.server.process.pid()) + "/ns/net";
  testing::Registry registry(box, "private", {}, testing::htpasswd_auth(box, "alice", "s3cret"),
                             netns);
  registry.push("test/busybox", "1", testing::registry_busybox_image());
  const std::string image = registry.authority() + "/test/busybox:1";

  std::ofstream(box.path("denied.yaml")) << pod_manifest("denied", image);
  p.s.ok({"apply", "-f", box.path("denied.yaml")});
  REQUIRE(eventually([&] { return p.waiting_reason("denied") == "ImagePullBackOff"; }, 30s));
  CHECK(p.s.jsonpath("pod/denied", "{.status.containerStatuses[0].state.waiting.message}") ==
        "Back-off pulling image \"" + image + "\"");
  const std::string described = p.s.ok({"describe", "pod", "denied"});
  INFO(described);
  CHECK(described.find("Failed to pull image \"" + image + "\"") != std::string::npos);
  CHECK(described.find("401 Unauthorized") != std::string::npos);
  CHECK(described.find("Error: ErrImagePull") != std::string::npos);
  CHECK(described.find("Error: ImagePullBackOff") != std::string::npos);

  p.s.ok({"create", "secret", "docker-registry", "regcred",
          "--docker-server=" + registry.authority(), "--docker-username=alice",
          "--docker-password=s3cret"});
  std::ofstream(box.path("allowed.yaml"))
      << pod_manifest("allowed", image, "  imagePullSecrets: [{name: regcred}]\n");
  p.s.ok({"apply", "-f", box.path("allowed.yaml")});
  REQUIRE(eventually([&] { return p.phase("allowed") == "Succeeded"; }, 30s));
  CHECK(p.s.ok({"logs", "allowed"}) == "pulled from a registry\n");
  CHECK(p.s.ok({"describe", "pod", "allowed"}).find("Successfully pulled image \"" + image) !=
        std::string::npos);
  // The image stays while a container (exited here) uses it, also for `k3c images rm` run
  // next to the server, as containerd keeps it.
  auto rm = box.run({K3C_BINARY, "images", "-d", box.data_dir(), "rm", image});
  CHECK(rm.exit_code == 1);
  CHECK(rm.err.find("k3c images rm: image " + image + " is in use by container ") !=
        std::string::npos);
  CHECK(box.run({K3C_BINARY, "images", "-d", box.data_dir(), "ls"}).out.find("test/busybox") !=
        std::string::npos);
}

TEST_CASE("runAsNonRoot over a root image, a user the image lacks, a hostPath of the wrong type") {
  if (!skip_reason().empty()) return;
  Sandbox box;
  {
    // A second airgap image whose USER names nobody in its (absent) /etc/passwd.
    testing::TestImage ghost = testing::busybox_image("docker.io/library/ghost:1");
    ghost.user = "ghost";
    const std::string dir = box.data_dir() + "/agent/images";
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/ghost.tar", std::ios::binary)
        << testing::tar_of(testing::docker_archive_files(ghost), testing::Compression::kNone);
  }
  PodSession p(box);
  const std::string file = box.path("a-file");
  std::ofstream(file) << "not a directory\n";
  std::ofstream(box.path("bad.yaml"))
      << pod_manifest("rootless", "busybox:1", "  securityContext: {runAsNonRoot: true}\n")
      << "---\n"
      << pod_manifest(
             "hostdir", "busybox:1",
             "  volumes:\n  - name: host\n    hostPath: {path: " + file + ", type: Directory}\n")
      << "    volumeMounts: [{name: host, mountPath: /host}]\n"
      << "---\n"
      << pod_manifest("ghost", "ghost:1");
  p.s.ok({"apply", "-f", box.path("bad.yaml")});
  REQUIRE(eventually([&] { return p.waiting_reason("rootless") == "CreateContainerConfigError"; }));
  const std::string uid = p.s.jsonpath("pod/rootless", "{.metadata.uid}");
  CHECK(p.s.jsonpath("pod/rootless", "{.status.containerStatuses[0].state.waiting.message}") ==
        "container has runAsNonRoot and image will run as root (pod: \"rootless_default(" + uid +
            ")\", container: app)");
  // The user is looked up in the image when the container is made, as containerd does.
  REQUIRE(eventually([&] { return p.waiting_reason("ghost") == "CreateContainerError"; }));
  CHECK(p.s.jsonpath("pod/ghost", "{.status.containerStatuses[0].state.waiting.message}") ==
        "unable to find user ghost: no matching entries in passwd file");
  // The mount fails before any container is made: ContainerCreating, and a FailedMount event.
  const std::string mount_error =
      "MountVolume.SetUp failed for volume \"host\" : hostPath type "
      "check failed: " +
      file + " is not a directory";
  REQUIRE(eventually([&] {
    return p.s.ok({"describe", "pod", "hostdir"}).find(mount_error) != std::string::npos;
  }));
  CHECK(p.waiting_reason("hostdir") == "ContainerCreating");
  CHECK(p.phase("hostdir") == "Pending");
  CHECK(p.phase("rootless") == "Pending");
  CHECK(p.phase("ghost") == "Pending");

  // Deleted, they go at once (nothing of theirs runs), with their sandboxes and cgroups.
  namespace fs = std::filesystem;
  const std::string sandboxes = box.data_dir() + "/agent/runtime/sandboxes";
  REQUIRE(fs::exists(sandboxes));
  CHECK_FALSE(fs::is_empty(sandboxes));
  p.s.ok({"delete", "pod", "rootless", "hostdir", "ghost", "--wait=false"});
  REQUIRE(eventually([&] { return p.s.ok({"get", "pods", "-o", "name"}).empty(); }));
  auto pod_cgroups = [&] {
    int n = 0;
    std::error_code ec;
    for (const char* tier : {"kubepods", "kubepods/besteffort", "kubepods/burstable"}) {
      for (const char* top : {"/sys/fs/cgroup/pids/", "/sys/fs/cgroup/"}) {
        const fs::path dir = std::string(top) + p.s.server.cgroups.name() + "/" + tier;
        for (const auto& e : fs::directory_iterator(dir, ec))
          n += e.is_directory() && e.path().filename().string().rfind("pod", 0) == 0;
      }
    }
    return n;
  };
  CHECK(eventually([&] { return pod_cgroups() == 0; }));
  CHECK(eventually([&] { return fs::is_empty(sandboxes); }));
}

TEST_CASE("seccomp: a Localhost profile from <root-dir>/seccomp confines the container and execs") {
  if (!skip_reason().empty()) return;
  Sandbox box;
  const std::string root = box.path("kubelet-root");
  std::filesystem::create_directories(root + "/seccomp/profiles");
  std::ofstream(root + "/seccomp/profiles/no-mkdir.json")
      << R"({"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [
           {"names": ["mkdir", "mkdirat"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1}]})";
  PodSession p(box, "1.33", {"--kubelet-arg", "root-dir=" + root});
  const auto manifest = [](const std::string& name, const std::string& profile) {
    return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
           "}\nspec:\n  securityContext:\n    seccompProfile: {type: Localhost, "
           "localhostProfile: " +
           profile +
           "}\n  containers:\n  - name: app\n    image: busybox:1\n"
           "    command: [sh, -c, 'mkdir /made; exec sleep 1000']\n";
  };
  std::ofstream(box.path("seccomp.yaml"))
      << manifest("confined", "profiles/no-mkdir.json") << "---\n"
      << manifest("unknown", "profiles/missing.json");
  p.s.ok({"apply", "-f", box.path("seccomp.yaml")});
  REQUIRE(eventually([&] { return p.phase("confined") == "Running"; }, 30s));
  auto exec = p.s.kubectl({"exec", "confined", "--", "sh", "-c",
                           "grep Seccomp: /proc/self/status; mkdir /tmp/x; ls -d /made"});
  INFO(exec.out << exec.err);
  CHECK(exec.exit_code == 1);  // ls: /made was never made
  CHECK(exec.out.find("Seccomp:\t2") != std::string::npos);
  CHECK(exec.err.find("mkdir: can't create directory '/tmp/x': Operation not permitted") !=
        std::string::npos);
  REQUIRE(eventually([&] { return p.waiting_reason("unknown") == "CreateContainerError"; }));
  const std::string message =
      p.s.jsonpath("pod/unknown", "{.status.containerStatuses[0].state.waiting.message}");
  INFO(message);
  CHECK(message.rfind("failed to generate seccomp spec opts: cannot load seccomp profile \"" +
                          root + "/seccomp/profiles/missing.json\"",
                      0) == 0);
  p.s.ok({"delete", "pod", "confined", "unknown", "--grace-period=1"});
}

}  // namespace k3c
