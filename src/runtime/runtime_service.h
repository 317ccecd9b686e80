// The runtime as the kubelet sees it: a CRI-shaped interface (pod sandboxes, containers,
// exec, stats), so the kubelet's pod workers can be tested against a fake and the real
// implementation (namespaces, overlayfs, shims, cgroups) stays inside src/runtime.
//
// Ids are opaque strings chosen by the runtime. Every call is blocking and thread-safe; the
// kubelet calls it from its pod workers. Errors: kNotFound for an unknown id, kInvalid for a
// config the runtime cannot honour (with a message the kubelet can put into an event),
// kNotImplemented for a feature not built yet.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/status.h"

namespace k3c::runtime {

using WallTime = std::chrono::system_clock::time_point;

struct LinuxResources {
  int64_t cpu_shares = 0;          // cgroup v1 cpu.shares (2..262144); 0 = runtime default
  int64_t cpu_quota_us = 0;        // 0 = unlimited
  int64_t cpu_period_us = 100000;  // CFS period
  int64_t memory_limit_bytes = 0;  // 0 = unlimited
  int64_t pids_limit = 0;          // 0 = unlimited
};

// ---- pod sandboxes --------------------------------------------------------------------------

struct SandboxConfig {
  std::string pod_uid;
  std::string pod_name;
  std::string pod_namespace;
  uint32_t attempt = 0;
  std::string hostname;  // the pod's hostname (spec.hostname or the pod name), for the UTS ns
  bool host_network = false;
  bool host_pid = false;
  bool host_ipc = false;
  bool share_process_namespace = false;
  // Files the runtime writes once into the sandbox and bind-mounts into every container
  // (unless the container mounts its own file at that path).
  std::string resolv_conf;  // /etc/resolv.conf contents
  std::string hosts;        // /etc/hosts contents
  // The pod-level cgroup, relative to the cgroup roots: e.g. "kubepods/burstable/pod<uid>",
  // with the pod-level limits (sums over the containers, as upstream's pod cgroup).
  std::string cgroup_parent;
  LinuxResources pod_resources;
  // /var/log/pods/<ns>_<name>_<uid>: container logs go below it.
  std::string log_directory;
  std::map<std::string, std::string> labels;  // kept and returned by list_sandboxes()
};

enum class SandboxState { kReady, kNotReady };

struct SandboxStatus {
  std::string id;
  SandboxConfig config;
  SandboxState state = SandboxState::kNotReady;
  WallTime created_at{};
  std::string ip;          // the pod IP; empty while the pod network is not built (loopback only)
  std::string netns_path;  // empty for hostNetwork
};

// ---- containers -----------------------------------------------------------------------------

struct Mount {
  std::string host_path;       // a file or directory on the host
  std::string container_path;  // absolute
  bool read_only = false;
  bool recursive = true;  // rbind
};

enum class SeccompProfile { kUnconfined, kRuntimeDefault, kLocalhost };

struct SecurityConfig {
  std::optional<int64_t> run_as_user;   // else the image USER, else 0
  std::optional<int64_t> run_as_group;  // else the user's primary group
  std::vector<int64_t> supplemental_groups;
  bool privileged = false;
  bool read_only_rootfs = false;
  bool no_new_privs = false;
  std::vector<std::string> add_capabilities;   // "NET_ADMIN" or "CAP_NET_ADMIN"; "ALL"
  std::vector<std::string> drop_capabilities;  // same spelling; "ALL"
  SeccompProfile seccomp =
      SeccompProfile::kUnconfined;  // the kubelet default (no --seccomp-default)
  // kLocalhost: the profile file on the host (JSON, doc/runtime.md), read when the container
  // is created.
  std::string seccomp_localhost_path;
};

struct ContainerConfig {
  std::string name;
  uint32_t attempt = 0;  // the restart count
  std::string image;     // a reference or id the image store resolves
  // The argv to run, already resolved by the kubelet from command/args and the image's
  // entrypoint/cmd (see the kubelet's command rules). Never empty.
  std::vector<std::string> args;
  std::vector<std::string> env;  // "NAME=value", image env already merged in by the kubelet
  std::string working_dir;       // empty = the image's, else "/"
  std::vector<Mount> mounts;
  bool stdin = false;
  bool stdin_once = false;
  bool tty = false;
  LinuxResources resources;
  SecurityConfig security;
  std::string log_path;  // relative to the sandbox's log_directory: "<container>/<attempt>.log"
  std::map<std::string, std::string> labels;  // kept and returned by list_containers()
};

enum class ContainerState { kCreated, kRunning, kExited, kUnknown };

struct ContainerStatus {
  std::string id;
  std::string sandbox_id;
  std::string name;
  uint32_t attempt = 0;
  ContainerState state = ContainerState::kUnknown;
  WallTime created_at{};
  WallTime started_at{};
  WallTime finished_at{};
  int exit_code = 0;
  // "OOMKilled" when the memory limit killed it, "Error" / "Completed" otherwise on exit,
  // "StartError" when the process could not be started (message says why).
  std::string reason;
  std::string message;
  std::string image;      // the reference asked for
  std::string image_ref;  // the image id (config digest)
  std::string log_path;   // absolute
  std::map<std::string, std::string> labels;
  std::vector<Mount> mounts;  // as created (CRI's ContainerStatus.mounts)
};

struct ExecResult {
  int exit_code = 0;
  std::string stdout_bytes;
  std::string stderr_bytes;
  bool timed_out = false;
};

struct ContainerStats {
  uint64_t cpu_usage_nanos = 0;  // cumulative
  uint64_t memory_working_set_bytes = 0;
  uint64_t memory_usage_bytes = 0;
  WallTime timestamp{};
  uint64_t process_count = 0;  // processes (threads) in the container's cgroup
  // What the container's writable layer holds on disk (CRI's writable_layer); nullopt when
  // the runtime does not measure it.
  std::optional<uint64_t> writable_layer_bytes = std::nullopt;
};

// ---- streaming: exec, attach, port-forward ---------------------------------------------------

// What a streaming client asked for (the stdin/stdout/stderr/tty query parameters of
// pods/exec and pods/attach).
struct StreamOptions {
  bool stdin = false;
  bool stdout = true;
  bool stderr = true;
  bool tty = false;  // stdout and stderr are one terminal; stderr_fd() is -1
};

// One interactive process (exec) or an attachment to a container's main process (attach).
// The kubelet's streaming server copies bytes between these descriptors and the client;
// the session owns them. The fds are non-blocking, so one thread may poll() them all.
// Thread-safety: close_stdin(), resize(), wait() and cancel() may be called from any thread.
class StreamSession {
 public:
  virtual ~StreamSession() = default;
  // Write end of the process's stdin; -1 when stdin was not asked for.
  virtual int stdin_fd() const = 0;
  // Read ends; -1 when not asked for. EOF when the process (or, for attach, the container)
  // closes its side. With a tty, stdout_fd() is the terminal and stderr_fd() is -1.
  virtual int stdout_fd() const = 0;
  virtual int stderr_fd() const = 0;
  // The client's stdin reached EOF: the process sees EOF on its stdin.
  virtual void close_stdin() = 0;
  // A terminal size change (tty only; kInvalid otherwise).
  virtual Status resize(uint16_t columns, uint16_t rows) = 0;
  // Blocks until the process exits (exec) or the container exits (attach); its exit code.
  // kServiceUnavailable when cancel() ended the session first.
  virtual Result<int> wait() = 0;
  // The client went away: an exec'd process is killed, an attach detaches (the container
  // runs on). Unblocks wait(). Idempotent; the destructor calls it.
  virtual void cancel() = 0;
};

// ---- the interface --------------------------------------------------------------------------

// The sandboxes and containers of one pod: sandboxes whose config names the pod's uid or that
// carry it in the label `uid_label`, containers with that label or in one of those sandboxes.
struct PodFilter {
  std::string pod_uid;
  std::string uid_label;

  bool matches(const SandboxConfig& sandbox) const {
    return sandbox.pod_uid == pod_uid || labelled(sandbox.labels);
  }
  bool matches(const std::map<std::string, std::string>& container_labels,
               const std::string& sandbox_id, const std::set<std::string>& sandbox_ids) const {
    return labelled(container_labels) || sandbox_ids.count(sandbox_id) > 0;
  }

 private:
  bool labelled(const std::map<std::string, std::string>& labels) const {
    auto it = labels.find(uid_label);
    return it != labels.end() && it->second == pod_uid;
  }
};

struct PodListing {
  std::vector<SandboxStatus> sandboxes;
  std::vector<ContainerStatus> containers;
};

class RuntimeService {
 public:
  virtual ~RuntimeService() = default;

  virtual Result<std::string> run_pod_sandbox(const SandboxConfig& config) = 0;
  // Stops every container of the sandbox (SIGKILL: graceful stops are the kubelet's job
  // before it calls this) and releases the network; the sandbox stays listed as kNotReady.
  virtual Status stop_pod_sandbox(const std::string& sandbox_id) = 0;
  // Removes the sandbox and all its containers; kOk when already gone.
  virtual Status remove_pod_sandbox(const std::string& sandbox_id) = 0;
  virtual Result<SandboxStatus> pod_sandbox_status(const std::string& sandbox_id) = 0;
  virtual Result<std::vector<SandboxStatus>> list_pod_sandboxes() = 0;

  virtual Result<std::string> create_container(const std::string& sandbox_id,
                                               const ContainerConfig& config) = 0;
  virtual Status start_container(const std::string& container_id) = 0;
  // Sends the stop signal (the image's STOPSIGNAL, else SIGTERM), waits up to `timeout`,
  // then SIGKILL. Returns once the process has exited.
  virtual Status stop_container(const std::string& container_id, std::chrono::seconds timeout) = 0;
  virtual Status remove_container(const std::string& container_id) = 0;
  virtual Result<ContainerStatus> container_status(const std::string& container_id) = 0;
  virtual Result<std::vector<ContainerStatus>> list_containers() = 0;
  // list_pod_sandboxes() and list_containers() narrowed to one pod. The kubelet asks this
  // several times per pod sync; a runtime that can filter before it reads each one's state
  // (LinuxRuntime) makes that cost independent of the number of pods on the node.
  virtual Result<PodListing> list_pod(const PodFilter& filter) {
    ASSIGN_OR_RETURN(std::vector<SandboxStatus> sandboxes, list_pod_sandboxes());
    ASSIGN_OR_RETURN(std::vector<ContainerStatus> containers, list_containers());
    PodListing listing;
    std::set<std::string> ids;
    for (SandboxStatus& s : sandboxes) {
      if (!filter.matches(s.config)) continue;
      ids.insert(s.id);
      listing.sandboxes.push_back(std::move(s));
    }
    for (ContainerStatus& c : containers) {
      if (filter.matches(c.labels, c.sandbox_id, ids)) listing.containers.push_back(std::move(c));
    }
    return listing;
  }

  // Runs `cmd` in the container's namespaces, cgroup and identity (exec probes, hooks).
  virtual Result<ExecResult> exec_sync(const std::string& container_id,
                                       const std::vector<std::string>& cmd,
                                       std::chrono::milliseconds timeout) = 0;
  virtual Result<ContainerStats> container_stats(const std::string& container_id) = 0;
  // The kubelet renamed the container's log file (rotation): the container's output goes
  // to a new file at the log path from now on (CRI ReopenContainerLog).
  virtual Status reopen_container_log(const std::string& container_id) = 0;
  // Creates the cgroup (and its missing parents) or updates it, with `r`: the kubelet's
  // node-level cgroups that no sandbox owns (kubepods and its QoS tiers, upstream's qos
  // container manager). `path` is relative to the cgroup roots, as SandboxConfig's.
  virtual Status update_cgroup(const std::string& path, const LinuxResources& r) = 0;
  // The names of the child cgroups of `path` (in any hierarchy), sorted; empty when `path`
  // does not exist. The kubelet lists its QoS tiers' pod cgroups with it.
  virtual Result<std::vector<std::string>> list_cgroups(const std::string& path) = 0;
  // Kills the processes left in the cgroup and its descendants, then removes them (upstream's
  // pod cgroup Destroy, for a pod cgroup no pod or sandbox owns). kOk when already gone;
  // kConflict when processes stay.
  virtual Status remove_cgroup(const std::string& path) = 0;

  // Starts `cmd` in a running container as an interactive session (kubectl exec).
  virtual Result<std::unique_ptr<StreamSession>> exec(const std::string& container_id,
                                                      const std::vector<std::string>& cmd,
                                                      const StreamOptions& options) {
    (void)container_id, (void)cmd, (void)options;
    return error(Code::kNotImplemented, "exec is not implemented by this runtime");
  }
  // Attaches to a running container's main process (kubectl attach, run -i). Output is
  // what the container writes from now on; stdin needs a container created with stdin.
  virtual Result<std::unique_ptr<StreamSession>> attach(const std::string& container_id,
                                                        const StreamOptions& options) {
    (void)container_id, (void)options;
    return error(Code::kNotImplemented, "attach is not implemented by this runtime");
  }
  // A TCP connection to localhost:`port` inside the sandbox's network namespace (kubectl
  // port-forward); the caller owns the returned (non-blocking) socket fd.
  virtual Result<int> port_forward(const std::string& sandbox_id, uint16_t port) {
    (void)sandbox_id, (void)port;
    return error(Code::kNotImplemented, "port-forward is not implemented by this runtime");
  }

  // The process is shutting down: calls that wait (a stop's grace period) return at once
  // with kServiceUnavailable and later ones do not wait. Containers are left as they are:
  // they outlive k3c and are re-adopted when it starts again.
  virtual void cancel_waits() {}
};

// The image side the kubelet needs (CRI's ImageService).
struct ImageSummary {
  std::string id;  // config digest
  std::vector<std::string> references;
  uint64_t size = 0;
  std::string user;  // the image's USER, for runAsNonRoot checks
  // The image config's process defaults: the kubelet resolves a container's argv from
  // entrypoint/cmd and merges env under the container's own (ContainerConfig::args, env).
  // (Default member initializers: aggregate initializations that stop at `user` stay valid.)
  std::vector<std::string> entrypoint{};
  std::vector<std::string> cmd{};
  std::vector<std::string> env{};  // "NAME=value"
  std::string working_dir{};
};

struct RegistryAuth {
  std::string username;
  std::string password;
  std::string identity_token;
};

class ImageService {
 public:
  virtual ~ImageService() = default;
  // kNotFound when the image is not present.
  virtual Result<ImageSummary> image_status(const std::string& ref) = 0;
  // Pulls `ref` (with credentials from imagePullSecrets, if any) and returns the image id.
  virtual Result<std::string> pull_image(const std::string& ref,
                                         const std::optional<RegistryAuth>& auth) = 0;
  virtual Result<std::vector<ImageSummary>> list_images() = 0;
  virtual Status remove_image(const std::string& ref) = 0;
};

}  // namespace k3c::runtime
