// The volume manager (see volume_manager.h).
#include "roles/kubelet/volumes/volume_manager.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>

#include "api/pod_qos.h"
#include "api/quantity.h"
#include "core/log.h"
#include "roles/kubelet/volumes/volume_ownership.h"
#include "roles/kubelet/volumes/volume_paths.h"

namespace k3c::kubelet::volumes {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr long kTmpfsMagic = 0x01021994;
constexpr const char* kKinds[] = {"emptyDir",
                                  "hostPath",
                                  "configMap",
                                  "secret",
                                  "downwardAPI",
                                  "projected",
                                  "persistentVolumeClaim"};

std::string volume_meta(const json& pod, const char* field) {
  return pod.value("metadata", json::object()).value(field, "");
}

std::string kind_of(const json& volume) {
  for (const char* k : kKinds)
    if (volume.contains(k)) return k;
  return "";
}

// A fresh name for the atomic writer's next directory, upstream-like: ..2026_11_30_08_30_00.N
std::string stamp() {
  static std::atomic<uint64_t> counter{0};
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y_%m_%d_%H_%M_%S", &tm);
  return std::string(buf) + "." + std::to_string(++counter);
}

// A tmpfs on `dir` unless one is there already.
Status ensure_tmpfs(const std::string& dir, const std::string& size) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return error(Code::kInternal, "creating " + dir + ": " + ec.message());
  struct statfs st {};
  if (statfs(dir.c_str(), &st) == 0 && st.f_type == kTmpfsMagic) return Status::ok();
  std::string options = "mode=0755";
  if (!size.empty()) options += ",size=" + size;
  if (mount("tmpfs", dir.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, options.c_str()) != 0) {
    return error(Code::kInternal, "mount tmpfs on " + dir + ": " + strerror(errno));
  }
  return Status::ok();
}

// The tmpfs size of a memory emptyDir, as upstream's calculateEmptyDirMemorySize: the node's
// allocatable memory, lowered to the pod's memory limit (its cgroup's) and then to the
// volume's sizeLimit, each only when it is set and smaller.
std::string memory_size(const json& pod, const json& empty_dir, const NodeFacts& node) {
  int64_t size = 0;
  if (auto it = node.allocatable.find("memory"); it != node.allocatable.end()) {
    if (auto q = api::Quantity::parse(it->second)) size = q->value();
  }
  auto lower = [&](int64_t limit) {
    if (limit > 0 && (size <= 0 || limit <= size)) size = limit;
  };
  lower(api::pod_cgroup(pod).memory_limit_bytes);
  if (auto q = api::Quantity::parse(empty_dir.value("sizeLimit", ""))) lower(q->value());
  return size > 0 ? std::to_string(size) : "";
}

}  // namespace

VolumeManager::VolumeManager(std::string root, client::Client& client, ConfigSource& objects,
                             client::EventRecorder& events, NodeFacts node)
    : root_(std::move(root)),
      client_(client),
      objects_(objects),
      events_(events),
      node_(std::move(node)) {}

Result<std::string> VolumeManager::token(const std::string& uid, const std::string& pod,
                                         const std::string& ns, const std::string& service_account,
                                         const std::string& audience, int64_t seconds) {
  const std::string key =
      uid + "/" + service_account + "/" + audience + "/" + std::to_string(seconds);
  const auto now = std::chrono::system_clock::now();
  {
    std::lock_guard lock(mu_);
    if (auto it = tokens_.find(key); it != tokens_.end() && now < it->second.refresh_at) {
      return it->second.token;
    }
  }
  json spec = {
      {"expirationSeconds", seconds},
      {"boundObjectRef", {{"apiVersion", "v1"}, {"kind", "Pod"}, {"name", pod}, {"uid", uid}}}};
  if (!audience.empty()) spec["audiences"] = json::array({audience});
  const json request = {
      {"apiVersion", "authentication.k8s.io/v1"}, {"kind", "TokenRequest"}, {"spec", spec}};
  const std::string target = client::resources::kServiceAccounts.path(ns, service_account, "token");
  ASSIGN_OR_RETURN(client::Reply reply, client_.request("POST", target, request.dump()));
  if (reply.status / 100 != 2) return client::status_of(reply);
  const json answer = json::parse(reply.body, nullptr, false);
  const std::string token =
      answer.is_object() ? answer.value("status", json::object()).value("token", "") : "";
  if (token.empty()) return error(Code::kInternal, "TokenRequest answered no token");
  // Renewed at 80% of its life, as upstream's token manager does.
  std::lock_guard lock(mu_);
  tokens_[key] = {token, now + std::chrono::seconds(seconds * 8 / 10)};
  return token;
}

Result<std::string> VolumeManager::claim_path(const std::string& ns, const std::string& claim) {
  ASSIGN_OR_RETURN(json pvc,
                   client::get(client_, client::resources::kPersistentVolumeClaims, ns, claim));
  const std::string pv_name = pvc.value("spec", json::object()).value("volumeName", "");
  if (pv_name.empty() || pvc.value("status", json::object()).value("phase", "") != "Bound") {
    return error(Code::kServiceUnavailable,
                 "error processing PVC " + ns + "/" + claim + ": PVC is not bound");
  }
  ASSIGN_OR_RETURN(json pv,
                   client::get(client_, client::resources::kPersistentVolumes, "", pv_name));
  const json spec = pv.value("spec", json::object());
  for (const char* source : {"hostPath", "local"}) {
    if (spec.contains(source)) {
      const std::string path = spec[source].value("path", "");
      const std::string type = spec[source].value("type", "");
      RETURN_IF_ERROR(check_host_path_type(path, type));
      return path;
    }
  }
  return error(Code::kNotImplemented,
               "persistent volume " + pv_name + ": only hostPath and local volumes can be mounted");
}

namespace {

// The pod's fsGroup on a volume directory, when it has one.
Status apply_fs_group(const json& pod, const std::string& dir, bool read_only) {
  const json sc = pod.value("spec", json::object()).value("securityContext", json::object());
  auto group = sc.find("fsGroup");
  if (group == sc.end() || !group->is_number_integer()) return Status::ok();
  const auto policy = sc.value("fsGroupChangePolicy", "") == "OnRootMismatch"
                          ? FsGroupChangePolicy::kOnRootMismatch
                          : FsGroupChangePolicy::kAlways;
  return set_volume_ownership(dir, group->get<int64_t>(), read_only, policy);
}

}  // namespace

Result<std::string> VolumeManager::set_up(const json& pod, const json& volume) {
  const std::string uid = volume_meta(pod, "uid");
  const std::string ns = volume_meta(pod, "namespace");
  const std::string name = volume.value("name", "");
  const std::string kind = kind_of(volume);
  if (kind.empty()) {
    return error(Code::kNotImplemented, "volume \"" + name +
                                            "\": this volume type is not "
                                            "implemented");
  }
  const json& source = volume[kind];
  if (kind == "hostPath") {
    const std::string path = source.value("path", "");
    RETURN_IF_ERROR(check_host_path_type(path, source.value("type", "")));
    return path;
  }
  if (kind == "persistentVolumeClaim") return claim_path(ns, source.value("claimName", ""));
  const std::string dir = volume_dir(root_, uid, kind, name);
  std::error_code ec;
  if (kind == "emptyDir") {
    if (source.value("medium", "") == "Memory") {
      RETURN_IF_ERROR(ensure_tmpfs(dir, memory_size(pod, source, node_)));
    } else {
      fs::create_directories(dir, ec);
      if (ec) return error(Code::kInternal, "creating " + dir + ": " + ec.message());
    }
    chmod(dir.c_str(), 0777);  // as upstream: any container user can write
    RETURN_IF_ERROR(apply_fs_group(pod, dir, false));
    return dir;
  }
  // Secrets never touch the disk (when the kubelet may mount; an unprivileged test writes
  // to a plain directory).
  if (kind == "secret" && geteuid() == 0) RETURN_IF_ERROR(ensure_tmpfs(dir, ""));
  PayloadInputs in{pod, objects_, node_,
                   [this, uid, pod_name = volume_meta(pod, "name")](
                       const std::string& n, const std::string& sa, const std::string& aud,
                       int64_t seconds) { return token(uid, pod_name, n, sa, aud, seconds); }};
  Result<Payload> payload = error(Code::kInternal, "unreachable");
  if (kind == "configMap") {
    payload = config_map_payload(source, 0644, in);
  } else if (kind == "secret") {
    payload = secret_payload(source, 0644, in);
  } else if (kind == "downwardAPI") {
    payload = downward_api_payload(source.value("items", json::array()),
                                   source.value("defaultMode", 0644), in);
  } else {
    payload = projected_payload(source, in);
  }
  if (!payload.is_ok()) return payload.status();
  auto written = write_atomic(dir, *payload, stamp());
  if (!written.is_ok()) return written.status();
  RETURN_IF_ERROR(apply_fs_group(pod, dir, true));  // mounted read-only
  return dir;
}

Result<std::vector<runtime::Mount>> VolumeManager::mounts(const json& pod, const json& container,
                                                          uint32_t attempt) {
  const json spec = pod.value("spec", json::object());
  std::map<std::string, std::pair<std::string, bool>> volumes;  // name -> (host path, ro)
  const json pod_volumes = spec.value("volumes", json::array());
  for (const auto& volume : pod_volumes) {
    const std::string name = volume.value("name", "");
    auto path = set_up(pod, volume);
    if (!path.is_ok()) {
      const std::string message =
          "MountVolume.SetUp failed for volume \"" + name + "\" : " + path.status().message();
      json object = pod;
      object["apiVersion"] = "v1";
      object["kind"] = "Pod";
      events_.record(object, "Warning", "FailedMount", message, "kubelet", "");
      return error(path.status().code(), message);
    }
    const std::string kind = kind_of(volume);
    // Projections are always read-only in the container, as upstream mounts them.
    const bool read_only =
        kind == "configMap" || kind == "secret" || kind == "downwardAPI" || kind == "projected" ||
        (kind == "persistentVolumeClaim" && volume[kind].value("readOnly", false));
    volumes[name] = {*path, read_only};
  }
  std::vector<runtime::Mount> out;
  const json volume_mounts = container.value("volumeMounts", json::array());
  for (const auto& vm : volume_mounts) {
    const std::string name = vm.value("name", "");
    auto it = volumes.find(name);
    if (it == volumes.end()) {
      return error(Code::kInvalid, "cannot find volume \"" + name +
                                       "\" to mount into container \"" +
                                       container.value("name", "") + "\"");
    }
    std::string host = it->second.first;
    if (vm.contains("subPathExpr")) {  // the pod sync expands it into subPath first
      return error(Code::kInvalid, "subPathExpr of volumeMount \"" + name + "\" was not expanded");
    }
    if (const std::string sub = vm.value("subPath", ""); !sub.empty()) {
      ASSIGN_OR_RETURN(host, resolve_sub_path(host, sub));
    }
    out.push_back(
        {host, vm.value("mountPath", ""), vm.value("readOnly", false) || it->second.second, true});
  }
  // The termination message file: one per container instance (<attempt>.termination-log),
  // written by the container, read back into its terminated state (pods/
  // termination_message.h). The previous instance's stays for lastState; older ones go.
  const std::string message_path =
      container.value("terminationMessagePath", "/dev/termination-log");
  if (!message_path.empty()) {
    const std::string dir =
        pod_dir(root_, volume_meta(pod, "uid")) + "/containers/" + container.value("name", "");
    std::error_code ec;
    fs::create_directories(dir, ec);
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      const std::string name = entry.path().filename();
      const uint32_t n = static_cast<uint32_t>(std::strtoul(name.c_str(), nullptr, 10));
      if (name.ends_with(".termination-log") && n + 1 < attempt) fs::remove(entry.path(), ec);
    }
    const std::string file = dir + "/" + std::to_string(attempt) + ".termination-log";
    const int fd = open(file.c_str(), O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0666);
    if (fd >= 0) {
      close(fd);
      chmod(file.c_str(), 0666);
      out.push_back({file, message_path, false, false});
    }
  }
  return out;
}

void VolumeManager::refresh(const json& pod) {
  const json metadata = pod.value("metadata", json::object());
  if (metadata.contains("deletionTimestamp")) return;
  std::error_code ec;
  if (!fs::is_directory(pod_dir(root_, volume_meta(pod, "uid")) + "/volumes", ec)) return;
  const json pod_volumes = pod.value("spec", json::object()).value("volumes", json::array());
  for (const auto& volume : pod_volumes) {
    const std::string kind = kind_of(volume);
    if (kind != "configMap" && kind != "secret" && kind != "downwardAPI" && kind != "projected") {
      continue;
    }
    // A failure keeps the files as they were, as upstream's kubelet does; the next sync
    // tries again.
    if (auto done = set_up(pod, volume); !done.is_ok()) {
      log::for_role("kubelet")->debug("refreshing volume {} of pod {}: {}",
                                      volume.value("name", ""), volume_meta(pod, "name"),
                                      done.status().to_string());
    }
  }
}

std::vector<std::string> VolumeManager::pod_uids() const {
  std::vector<std::string> uids;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root_ + "/pods", ec))
    uids.push_back(entry.path().filename().string());
  return uids;
}

void VolumeManager::remove_pod(const std::string& uid) {
  if (uid.empty() || uid.find('/') != std::string::npos || uid.find("..") != std::string::npos) {
    return;
  }
  const std::string dir = pod_dir(root_, uid);
  std::error_code ec;
  // Unmount every volume directory that is a mount point (tmpfs) before removing anything,
  // so nothing below a mount is ever walked into twice.
  for (const auto& plugin : fs::directory_iterator(dir + "/volumes", ec)) {
    std::error_code ec2;
    for (const auto& volume : fs::directory_iterator(plugin.path(), ec2)) {
      (void)umount2(volume.path().c_str(), MNT_DETACH);
    }
  }
  fs::remove_all(dir, ec);
  if (ec) log::for_role("kubelet")->warn("removing {}: {}", dir, ec.message());
  std::lock_guard lock(mu_);
  std::erase_if(tokens_, [&](const auto& kv) { return kv.first.rfind(uid + "/", 0) == 0; });
}

}  // namespace k3c::kubelet::volumes
