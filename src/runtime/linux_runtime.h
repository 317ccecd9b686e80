// The real RuntimeService and ImageService: sandboxes as pinned namespaces, containers as
// shim-supervised processes on overlayfs roots from the image store, in cgroups.
//
// Layout under state_root (default <data-dir>/agent/runtime):
//   sandboxes/<id>/sandbox.json   the record; net, ipc, uts (pinned namespaces);
//                                 hosts, resolv.conf, hostname (bind-mounted into containers)
//   containers/<id>/container.json the record; the shim's state files and the overlay dirs
// Every call is thread-safe: records are rewritten atomically and kept in memory
// (linux/record_cache.h); changes to one sandbox and its
// containers are serialised by that sandbox's lock, so pods start in parallel; removing an
// image excludes creating containers (a shared/exclusive lock).
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>

#include "runtime/image_store.h"
#include "runtime/linux/record_cache.h"
#include "runtime/registry/puller.h"
#include "runtime/runtime_service.h"
#include "runtime/shim/seccomp_profile.h"

namespace k3c::runtime {

class CgroupManager;
struct ProcessSpec;

struct LinuxRuntimeConfig {
  std::string data_dir;    // k3c's --data-dir: the image store lives under it
  std::string state_root;  // "" = <data-dir>/agent/runtime
  std::string cgroup_root = "/sys/fs/cgroup";
  // Pulls for the kubelet (registries.yaml over the HTTP client, made by the CLI); null:
  // pull_image answers "not implemented".
  std::shared_ptr<const registry::Puller> puller;
};

class LinuxRuntime final : public RuntimeService, public ImageService {
 public:
  static Result<std::unique_ptr<LinuxRuntime>> open(const LinuxRuntimeConfig& config);
  ~LinuxRuntime() override;

  Result<std::string> run_pod_sandbox(const SandboxConfig& config) override;
  Status stop_pod_sandbox(const std::string& sandbox_id) override;
  Status remove_pod_sandbox(const std::string& sandbox_id) override;
  Result<SandboxStatus> pod_sandbox_status(const std::string& sandbox_id) override;
  Result<std::vector<SandboxStatus>> list_pod_sandboxes() override;

  Result<std::string> create_container(const std::string& sandbox_id,
                                       const ContainerConfig& config) override;
  Status start_container(const std::string& container_id) override;
  Status stop_container(const std::string& container_id, std::chrono::seconds timeout) override;
  Status remove_container(const std::string& container_id) override;
  Result<ContainerStatus> container_status(const std::string& container_id) override;
  Result<std::vector<ContainerStatus>> list_containers() override;
  // Filters on the kept records; only the pod's own objects get their state read.
  Result<PodListing> list_pod(const PodFilter& filter) override;
  Status reopen_container_log(const std::string& container_id) override;
  Status update_cgroup(const std::string& path, const LinuxResources& r) override;
  Result<std::vector<std::string>> list_cgroups(const std::string& path) override;
  Status remove_cgroup(const std::string& path) override;
  Result<ExecResult> exec_sync(const std::string& container_id, const std::vector<std::string>& cmd,
                               std::chrono::milliseconds timeout) override;
  Result<ContainerStats> container_stats(const std::string& container_id) override;
  // linux_runtime_streams.cpp
  Result<std::unique_ptr<StreamSession>> exec(const std::string& container_id,
                                              const std::vector<std::string>& cmd,
                                              const StreamOptions& options) override;
  Result<std::unique_ptr<StreamSession>> attach(const std::string& container_id,
                                                const StreamOptions& options) override;
  Result<int> port_forward(const std::string& sandbox_id, uint16_t port) override;
  void cancel_waits() override { cancelled_ = true; }

  Result<ImageSummary> image_status(const std::string& ref) override;
  Result<std::string> pull_image(const std::string& ref,
                                 const std::optional<RegistryAuth>& auth) override;
  Result<std::vector<ImageSummary>> list_images() override;
  Status remove_image(const std::string& ref) override;

  ImageStore& images() { return *images_; }

 private:
  LinuxRuntime(std::string state_root, std::unique_ptr<ImageStore> images,
               std::unique_ptr<CgroupManager> cgroups,
               std::shared_ptr<const registry::Puller> puller);
  std::string sandbox_dir(const std::string& id) const;
  std::string container_dir(const std::string& id) const;
  Result<SandboxRecord> sandbox_record(const std::string& id) const;
  Result<ContainerRecord> container_record(const std::string& id) const;
  Status remove_container_locked(const std::string& id);
  // The record of a container whose process runs; kInvalid (containerd's "container is in
  // CONTAINER_EXITED state") when it does not.
  Result<ContainerRecord> running_container(const std::string& container_id) const;
  Result<ProcessSpec> process_spec(const ContainerRecord& record) const;

  const std::string state_root_;
  std::unique_ptr<ImageStore> images_;
  std::unique_ptr<CgroupManager> cgroups_;
  const std::shared_ptr<const registry::Puller> puller_;
  mutable RecordCache records_;  // thread-safe itself; mutable for the const readers
  // The lock of one sandbox (created on first use, dropped when the sandbox is removed).
  std::shared_ptr<std::mutex> sandbox_lock(const std::string& sandbox_id);
  void forget_sandbox_lock(const std::string& sandbox_id);
  void thaw_containers();

  std::mutex locks_mu_;  // guards sandbox_locks_
  std::map<std::string, std::shared_ptr<std::mutex>> sandbox_locks_;
  std::shared_mutex images_mu_;  // shared: creating a container; exclusive: removing an image
  mutable shim::SeccompPrograms seccomp_programs_;  // thread-safe itself
  std::atomic<bool> cancelled_{false};
};

}  // namespace k3c::runtime
