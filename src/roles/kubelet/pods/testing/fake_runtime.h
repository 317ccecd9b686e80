// A runtime for kubelet unit tests: sandboxes, containers and images as state in memory,
// behind the real RuntimeService / ImageService interfaces. Containers "run" until the test
// ends them (exit()) or the kubelet stops them; images are present or pullable as the test
// sets up; switches make pulls, sandbox creation or container creation fail. Every call is
// logged ("run_pod_sandbox web", "create_container sb1 app", "stop_container c3 30s") so a
// test can check what a sync did and in which order. Streaming is real behind the seam:
// exec runs its argv as a host process (pipes or a pseudo terminal), attach runs the
// container's attach command (set_attach_command; default `cat`), and port_forward connects
// to 127.0.0.1:<port> (a listener the test runs).
//
// Thread-safety: every method from any thread (the pod manager's workers and the test).
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/clock.h"
#include "runtime/runtime_service.h"

namespace k3c::kubelet::testing {

class FakeRuntime final : public runtime::RuntimeService, public runtime::ImageService {
 public:
  explicit FakeRuntime(const Clock& clock) : clock_(clock) {}

  // ---- set-up and control -------------------------------------------------------------
  // An image present on the node (`ref` as pods name it).
  void add_image(const std::string& ref, runtime::ImageSummary image = {});
  // An image a pull of `ref` will fetch.
  void add_pullable_image(const std::string& ref, runtime::ImageSummary image = {});
  // Pulls of `ref` fail with this message (empty: they work again).
  void fail_pulls(const std::string& ref, const std::string& message);
  // The next sandboxes / containers fail to be created with this message (empty: no more).
  void fail_sandbox_creation(const std::string& message);
  void fail_container_creation(const std::string& name, const std::string& message);
  // A running container's process ends with `exit_code` (reason "Completed" for 0, else
  // "Error", unless `reason` is given).
  void exit(const std::string& container_id, int exit_code, const std::string& reason = "");
  // The sandbox loses its network (state NotReady), as after a reboot.
  void break_sandbox(const std::string& sandbox_id);
  // What exec_sync answers in containers with this name (default: exit 0, no output).
  void set_exec_result(const std::string& container_name, runtime::ExecResult result);
  // What container_stats answers for containers with this name (default: not faked).
  void set_stats(const std::string& container_name, runtime::ContainerStats stats);
  // What attach runs on the host for containers with this name (default: cat).
  void set_attach_command(const std::string& container_name, std::vector<std::string> argv);
  // Adds a sandbox no pod asked for, as if left behind by an earlier run.
  std::string add_stray_sandbox(const std::string& pod_uid);
  // Adds a pod-level cgroup with no sandbox, as if left behind by a k3c stopped between
  // removing a sandbox and its cgroup.
  void add_stray_pod_cgroup(const std::string& path);

  // ---- inspection ---------------------------------------------------------------------
  std::vector<std::string> calls() const;
  // The newest container with this name, if any.
  std::optional<runtime::ContainerStatus> container(const std::string& name) const;
  std::optional<runtime::ContainerConfig> config(const std::string& container_id) const;
  std::vector<runtime::ContainerStatus> containers() const;
  std::vector<runtime::SandboxStatus> sandboxes() const;
  // The node-level cgroups update_cgroup() was given, as last given (not in calls()).
  std::map<std::string, runtime::LinuxResources> cgroups() const;
  // The pod-level cgroups that exist: each sandbox's until it is removed, and stray ones.
  std::set<std::string> pod_cgroups() const;

  // ---- RuntimeService -------------------------------------------------------------------
  Result<std::string> run_pod_sandbox(const runtime::SandboxConfig& config) override;
  Status stop_pod_sandbox(const std::string& sandbox_id) override;
  Status remove_pod_sandbox(const std::string& sandbox_id) override;
  Result<runtime::SandboxStatus> pod_sandbox_status(const std::string& sandbox_id) override;
  Result<std::vector<runtime::SandboxStatus>> list_pod_sandboxes() override;
  Result<std::string> create_container(const std::string& sandbox_id,
                                       const runtime::ContainerConfig& config) override;
  Status start_container(const std::string& container_id) override;
  Status stop_container(const std::string& container_id, std::chrono::seconds timeout) override;
  Status remove_container(const std::string& container_id) override;
  Result<runtime::ContainerStatus> container_status(const std::string& container_id) override;
  Result<std::vector<runtime::ContainerStatus>> list_containers() override;
  Status reopen_container_log(const std::string& container_id) override;
  Status update_cgroup(const std::string& path, const runtime::LinuxResources& r) override;
  Result<std::vector<std::string>> list_cgroups(const std::string& path) override;
  Status remove_cgroup(const std::string& path) override;
  Result<runtime::ExecResult> exec_sync(const std::string& container_id,
                                        const std::vector<std::string>& cmd,
                                        std::chrono::milliseconds timeout) override;
  Result<runtime::ContainerStats> container_stats(const std::string& container_id) override;
  Result<std::unique_ptr<runtime::StreamSession>> exec(
      const std::string& container_id, const std::vector<std::string>& cmd,
      const runtime::StreamOptions& options) override;
  Result<std::unique_ptr<runtime::StreamSession>> attach(
      const std::string& container_id, const runtime::StreamOptions& options) override;
  Result<int> port_forward(const std::string& sandbox_id, uint16_t port) override;

  // ---- ImageService ---------------------------------------------------------------------
  Result<runtime::ImageSummary> image_status(const std::string& ref) override;
  Result<std::string> pull_image(const std::string& ref,
                                 const std::optional<runtime::RegistryAuth>& auth) override;
  Result<std::vector<runtime::ImageSummary>> list_images() override;
  Status remove_image(const std::string& ref) override;

 private:
  struct Container {
    runtime::ContainerStatus status;
    runtime::ContainerConfig config;
  };
  void log(std::string call);
  void kill_locked(Container& c, int exit_code, const std::string& reason);

  const Clock& clock_;
  mutable std::mutex mu_;
  int next_id_ = 0;
  std::vector<std::string> calls_;
  std::map<std::string, runtime::SandboxStatus> sandboxes_;
  std::map<std::string, Container> containers_;
  std::map<std::string, runtime::ImageSummary> images_, pullable_;
  std::map<std::string, std::string> pull_failures_;
  std::string sandbox_failure_;
  std::map<std::string, std::string> create_failures_;
  std::map<std::string, runtime::ExecResult> exec_results_;
  std::map<std::string, runtime::ContainerStats> stats_;  // by container name
  std::map<std::string, std::vector<std::string>> attach_commands_;
  std::map<std::string, runtime::LinuxResources> cgroups_;
  std::set<std::string> pod_cgroups_;
};

}  // namespace k3c::kubelet::testing
