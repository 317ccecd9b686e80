#include "runtime/linux_runtime.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <set>
#include <thread>

#include "core/ids.h"
#include "runtime/cgroups/cgroup_manager.h"
#include "runtime/files.h"
#include "runtime/internal/tree_at.h"
#include "runtime/linux/capabilities.h"
#include "runtime/linux/namespace_pin.h"
#include "runtime/linux/records.h"
#include "runtime/linux/stop_signal.h"
#include "runtime/linux/user_lookup.h"
#include "runtime/shim/container_process.h"
#include "runtime/shim/pause_process.h"
#include "runtime/shim/seccomp_profile.h"

namespace k3c::runtime {
namespace {

constexpr size_t kMaxEtcFileBytes = 1 << 20;
constexpr auto kPollInterval = std::chrono::milliseconds(20);
// After SIGKILL a process is gone within milliseconds unless it is stuck in the kernel.
constexpr auto kKillWait = std::chrono::seconds(5);
constexpr const char* kDefaultPath =
    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

// A file of the image's root filesystem, resolved inside it (symlinks cannot leave it);
// "" when it does not exist.
std::string read_in_root(const std::string& root, std::string_view path) {
  internal::Fd root_fd(open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (root_fd.get() < 0) return {};
  auto file = internal::open_in_root(root_fd.get(), path, O_RDONLY | O_CLOEXEC);
  if (!file.is_ok()) return {};
  std::string bytes;
  char buffer[8192];
  ssize_t n;
  while ((n = read(file->get(), buffer, sizeof buffer)) > 0 && bytes.size() < kMaxEtcFileBytes)
    bytes.append(buffer, static_cast<size_t>(n));
  return bytes;
}

bool has_env(const std::vector<std::string>& env, std::string_view name) {
  return std::any_of(env.begin(), env.end(), [&](const std::string& entry) {
    return entry.size() > name.size() && entry.compare(0, name.size(), name) == 0 &&
           entry[name.size()] == '=';
  });
}

bool mounts_path(const ContainerConfig& config, std::string_view path) {
  return std::any_of(config.mounts.begin(), config.mounts.end(),
                     [&](const Mount& m) { return m.container_path == path; });
}

NamespaceSetting join_or_host(const std::string& pinned) {
  if (pinned.empty()) return {NamespaceMode::kHost, ""};
  return {NamespaceMode::kJoin, pinned};
}

bool process_started(const Result<ProcessState>& state) { return state.is_ok() && state->pid > 0; }

// shareProcessNamespace: a pause process owns the pod's PID namespace (hostPID wins, as
// upstream's validation allows only one of the two).
bool has_pause(const SandboxConfig& config) {
  return config.share_process_namespace && !config.host_pid;
}

}  // namespace

LinuxRuntime::LinuxRuntime(std::string state_root, std::unique_ptr<ImageStore> images,
                           std::unique_ptr<CgroupManager> cgroups,
                           std::shared_ptr<const registry::Puller> puller)
    : state_root_(std::move(state_root)),
      images_(std::move(images)),
      cgroups_(std::move(cgroups)),
      puller_(std::move(puller)) {}

LinuxRuntime::~LinuxRuntime() = default;

Result<std::unique_ptr<LinuxRuntime>> LinuxRuntime::open(const LinuxRuntimeConfig& config) {
  auto images = ImageStore::open(config.data_dir);
  if (!images.is_ok()) return images.status();
  auto cgroups = CgroupManager::detect(config.cgroup_root);
  if (!cgroups.is_ok()) return cgroups.status();
  std::string root =
      config.state_root.empty() ? runtime_state_root(config.data_dir) : config.state_root;
  for (const char* sub : {"/sandboxes", "/containers"})
    if (Status s = make_dirs(root + sub, 0700); !s.is_ok()) return s;
  // Pause processes of sandboxes removed or stopped while no k3c ran to finish the job; the
  // others are adopted as they are (their records say where they run).
  stop_unowned_pauses(root + "/sandboxes", [](const std::string& dir) {
    auto record = load_sandbox_record(dir + "/sandbox.json");
    return record.is_ok() && !record->stopped;
  });
  auto runtime = std::unique_ptr<LinuxRuntime>(
      new LinuxRuntime(std::move(root), std::move(*images), std::move(*cgroups), config.puller));
  runtime->thaw_containers();
  return runtime;
}

// A kill_all cut short (k3c stopped between its freeze and its thaw) leaves a container's
// cgroup frozen: its processes neither run nor die, and a frozen PID 1 outlives its PID
// namespace's end. Every container this runtime knows is thawed before it is adopted.
void LinuxRuntime::thaw_containers() {
  auto ids = list_dir(state_root_ + "/containers");
  if (!ids.is_ok()) return;
  for (const std::string& id : *ids) {
    auto record = container_record(id);
    if (record.is_ok() && !record->cgroup.empty()) cgroups_->thaw(record->cgroup);
  }
}

Result<SandboxRecord> LinuxRuntime::sandbox_record(const std::string& id) const {
  return records_.sandbox(sandbox_dir(id) + "/sandbox.json");
}
Result<ContainerRecord> LinuxRuntime::container_record(const std::string& id) const {
  return records_.container(container_dir(id) + "/container.json");
}

std::string LinuxRuntime::sandbox_dir(const std::string& id) const {
  return state_root_ + "/sandboxes/" + id;
}
std::string LinuxRuntime::container_dir(const std::string& id) const {
  return state_root_ + "/containers/" + id;
}

// ---- sandboxes ------------------------------------------------------------------------------

Result<std::string> LinuxRuntime::run_pod_sandbox(const SandboxConfig& config) {
  // A new id: no other call can address this sandbox before it is returned.
  SandboxRecord record{new_runtime_id(), config, std::chrono::system_clock::now(), false};
  const std::string dir = sandbox_dir(record.id);
  auto fail = [&](Status status) {
    (void)stop_pause(dir);
    (void)unpin_namespaces(dir);
    if (!config.cgroup_parent.empty()) (void)cgroups_->remove(config.cgroup_parent);
    (void)remove_tree(dir);
    return status;
  };
  if (Status s = make_dirs(dir, 0700); !s.is_ok()) return fail(s);
  // A hostNetwork pod shares the host's UTS namespace too, as upstream.
  NamespaceKinds kinds{!config.host_network, !config.host_ipc, !config.host_network};
  auto pinned = pin_namespaces(dir, kinds, config.hostname);
  if (!pinned.is_ok()) return fail(pinned.status());
  if (!config.cgroup_parent.empty()) {
    if (Status s = cgroups_->create(config.cgroup_parent, config.pod_resources); !s.is_ok())
      return fail(s);
  }
  if (has_pause(config)) {
    auto pause = start_pause(dir);
    if (!pause.is_ok()) return fail(pause.status());
    // Charged to the pod, as upstream's pause container: in a leaf cgroup of its own below the
    // pod's (cgroup v2 lets only leaves hold processes once controllers are delegated).
    if (!config.cgroup_parent.empty()) {
      const std::string leaf = config.cgroup_parent + "/" + record.id;
      if (Status s = cgroups_->create(leaf, {}); !s.is_ok()) return fail(s);
      if (Status s = cgroups_->add_process(leaf, *pause); !s.is_ok()) return fail(s);
    }
    auto pid_ns = pin_pid_namespace(dir, *pause);
    if (!pid_ns.is_ok()) return fail(pid_ns.status());
    // Pinned from a pid that could have been recycled in between: still the pause's?
    if (running_pause(dir) != *pause)
      return fail(error(Code::kInternal, "the pause process exited during the sandbox's start"));
  }
  const std::string hostname = config.host_network ? host_name() : config.hostname;
  for (auto [name, bytes] : {std::pair<const char*, std::string>{"hosts", config.hosts},
                             {"resolv.conf", config.resolv_conf},
                             {"hostname", hostname + "\n"}}) {
    // Unsynced: they serve the pinned namespaces, which a power loss ends anyway.
    if (Status s = write_file_unsynced(dir + "/" + name, bytes); !s.is_ok()) return fail(s);
  }
  if (!config.log_directory.empty()) {
    if (Status s = make_dirs(config.log_directory, 0755); !s.is_ok()) return fail(s);
  }
  if (Status s = records_.save(dir + "/sandbox.json", record); !s.is_ok()) return fail(s);
  return record.id;
}

std::shared_ptr<std::mutex> LinuxRuntime::sandbox_lock(const std::string& sandbox_id) {
  std::lock_guard lock(locks_mu_);
  auto& slot = sandbox_locks_[sandbox_id];
  if (!slot) slot = std::make_shared<std::mutex>();
  return slot;
}

void LinuxRuntime::forget_sandbox_lock(const std::string& sandbox_id) {
  std::lock_guard lock(locks_mu_);
  sandbox_locks_.erase(sandbox_id);
}

Status LinuxRuntime::stop_pod_sandbox(const std::string& sandbox_id) {
  auto held = sandbox_lock(sandbox_id);
  std::lock_guard lock(*held);
  const std::string dir = sandbox_dir(sandbox_id);
  auto record = records_.sandbox(dir + "/sandbox.json");
  if (!record.is_ok()) return record.status();
  auto containers = list_dir(state_root_ + "/containers");
  if (!containers.is_ok()) return containers.status();
  for (const std::string& id : *containers) {
    auto c = container_record(id);
    if (!c.is_ok() || c->sandbox_id != sandbox_id) continue;
    (void)signal_container(process_dir(container_dir(id)), SIGKILL);
    (void)cgroups_->kill_all(c->cgroup);
  }
  if (Status s = stop_pause(dir); !s.is_ok()) return s;
  if (Status s = unpin_namespaces(dir); !s.is_ok()) return s;
  record->stopped = true;
  return records_.save(dir + "/sandbox.json", *record);
}

Status LinuxRuntime::remove_pod_sandbox(const std::string& sandbox_id) {
  auto held = sandbox_lock(sandbox_id);
  std::lock_guard lock(*held);
  const std::string dir = sandbox_dir(sandbox_id);
  auto record = records_.sandbox(dir + "/sandbox.json");
  if (!record.is_ok() && record.status().code() != Code::kNotFound) return record.status();
  auto containers = list_dir(state_root_ + "/containers");
  if (!containers.is_ok()) return containers.status();
  for (const std::string& id : *containers) {
    auto c = container_record(id);
    if (c.is_ok() && c->sandbox_id == sandbox_id) {
      if (Status s = remove_container_locked(id); !s.is_ok()) return s;
    }
  }
  if (Status s = stop_pause(dir); !s.is_ok()) return s;
  if (Status s = unpin_namespaces(dir); !s.is_ok()) return s;
  if (record.is_ok() && !record->config.cgroup_parent.empty()) {
    if (Status s = cgroups_->remove(record->config.cgroup_parent); !s.is_ok()) return s;
  }
  records_.forget(dir + "/sandbox.json");
  if (Status s = remove_tree(dir); !s.is_ok()) return s;
  forget_sandbox_lock(sandbox_id);
  return Status::ok();
}

Result<SandboxStatus> LinuxRuntime::pod_sandbox_status(const std::string& sandbox_id) {
  const std::string dir = sandbox_dir(sandbox_id);
  auto record = records_.sandbox(dir + "/sandbox.json");
  if (!record.is_ok()) return record.status();
  SandboxStatus status;
  status.id = record->id;
  status.config = record->config;
  status.created_at = record->created_at;
  PinnedNamespaces pinned = pinned_namespaces(dir);
  // A pause that died (killed) took its PID namespace and the containers in it along: the
  // kubelet makes a new sandbox, as upstream's after a dead pause container.
  const bool namespaces_alive =
      (record->config.host_network || !pinned.net.empty()) &&
      (record->config.host_ipc || !pinned.ipc.empty()) &&
      (!has_pause(record->config) || (!pinned.pid.empty() && running_pause(dir) > 0));
  status.state =
      !record->stopped && namespaces_alive ? SandboxState::kReady : SandboxState::kNotReady;
  status.netns_path = pinned.net;
  return status;
}

Result<std::vector<SandboxStatus>> LinuxRuntime::list_pod_sandboxes() {
  auto ids = list_dir(state_root_ + "/sandboxes");
  if (!ids.is_ok()) return ids.status();
  std::vector<SandboxStatus> sandboxes;
  for (const std::string& id : *ids) {
    auto status = pod_sandbox_status(id);
    if (status.is_ok()) sandboxes.push_back(std::move(*status));
  }
  return sandboxes;
}

// ---- containers -----------------------------------------------------------------------------

Result<std::string> LinuxRuntime::create_container(const std::string& sandbox_id,
                                                   const ContainerConfig& config) {
  if (config.args.empty())
    return error(Code::kInvalid, "no command specified for container " + config.name);
  std::shared_lock images_lock(images_mu_);
  auto held = sandbox_lock(sandbox_id);
  std::lock_guard lock(*held);
  auto sandbox = sandbox_record(sandbox_id);
  if (!sandbox.is_ok()) return sandbox.status();
  if (sandbox->stopped) return error(Code::kInvalid, "sandbox " + sandbox_id + " is stopped");
  auto image = images_->find(config.image);
  if (!image.is_ok()) return image.status();
  auto snapshot = images_->unpack(image->id);
  if (!snapshot.is_ok()) return snapshot.status();

  ContainerRecord record;
  record.id = new_runtime_id();
  record.sandbox_id = sandbox_id;
  record.config = config;
  record.image_ref = image->id;
  record.snapshot = *snapshot;
  const std::string parent =
      sandbox->config.cgroup_parent.empty() ? "k3c" : sandbox->config.cgroup_parent;
  record.cgroup = parent + "/" + record.id;
  record.created_at = std::chrono::system_clock::now();
  // Defaults the image decides, fixed at creation as CRI does.
  if (record.config.working_dir.empty()) record.config.working_dir = image->config.working_dir;
  if (record.config.working_dir.empty()) record.config.working_dir = "/";
  std::vector<std::string>& env = record.config.env;
  if (!has_env(env, "PATH")) env.insert(env.begin(), kDefaultPath);
  if (!has_env(env, "HOSTNAME")) {
    env.push_back("HOSTNAME=" +
                  (sandbox->config.host_network ? host_name() : sandbox->config.hostname));
  }
  // The user and the capabilities are resolved against the image now, as containerd does
  // when it makes the container: a user the image lacks fails the create, not the start.
  if (record.config.security.seccomp == SeccompProfile::kLocalhost) {
    auto profile = shim::load_seccomp_profile(record.config.security.seccomp_localhost_path);
    if (!profile.is_ok()) return profile.status();
    record.seccomp_profile = std::move(*profile);
  }
  // The seccomp profile too: one that does not compile fails the create, as containerd's.
  if (auto process = process_spec(record); !process.is_ok()) return process.status();
  const std::string dir = container_dir(record.id);
  if (Status s = make_dirs(dir, 0700); !s.is_ok()) return s;
  if (Status s = records_.save(dir + "/container.json", record); !s.is_ok()) {
    (void)remove_tree(dir);
    return s;
  }
  return record.id;
}

// The container's process as the record says (args, env, cwd) with its identity resolved
// against the image's own passwd/group files and its capability set; the container's start
// and every exec share it.
Result<ProcessSpec> LinuxRuntime::process_spec(const ContainerRecord& record) const {
  auto image = images_->find(record.image_ref);
  if (!image.is_ok()) return image.status();
  const SecurityConfig& security = record.config.security;
  UserRequest user{image->config.user, security.run_as_user, security.run_as_group,
                   security.supplemental_groups};
  auto identity = resolve_user(user, read_in_root(record.snapshot, "etc/passwd"),
                               read_in_root(record.snapshot, "etc/group"));
  if (!identity.is_ok()) return identity.status();
  auto capabilities = container_capabilities(security);
  if (!capabilities.is_ok()) return capabilities.status();
  ProcessSpec process;
  process.args = record.config.args;
  process.env = record.config.env;
  process.cwd = record.config.working_dir;
  process.uid = identity->uid;
  process.gid = identity->gid;
  process.groups = identity->additional_gids;
  process.capabilities = std::move(*capabilities);
  process.no_new_privs = security.no_new_privs;
  process.seccomp = security.seccomp;
  process.seccomp_profile = record.seccomp_profile;
  if (Status s = seccomp_programs_.compile_into(process); !s.is_ok()) return s;
  return process;
}

Status LinuxRuntime::start_container(const std::string& container_id) {
  const std::string dir = container_dir(container_id);
  auto record = records_.container(dir + "/container.json");
  if (!record.is_ok()) return record.status();
  auto held = sandbox_lock(record->sandbox_id);
  std::lock_guard lock(*held);
  if (process_started(read_process_state(process_dir(dir))) || !record->start_error.empty())
    return error(Code::kInvalid, "container " + container_id + " was already started");
  auto sandbox = sandbox_record(record->sandbox_id);
  if (!sandbox.is_ok()) return sandbox.status();
  const ContainerConfig& config = record->config;
  const SandboxConfig& pod = sandbox->config;

  auto fail = [&](Status status) {
    record->start_error = status.message();
    record->start_error_at = std::chrono::system_clock::now();
    (void)records_.save(dir + "/container.json", *record);
    (void)cgroups_->remove(record->cgroup);
    return status;
  };

  LaunchSpec spec;
  spec.id = record->id;
  spec.state_dir = process_dir(dir);
  spec.lower_dirs = {record->snapshot};
  spec.read_only_rootfs = config.security.read_only_rootfs;
  spec.privileged = config.security.privileged;
  spec.mounts = config.mounts;
  const std::string sdir = sandbox_dir(record->sandbox_id);
  for (auto [file, target] : {std::pair<const char*, const char*>{"hosts", "/etc/hosts"},
                              {"resolv.conf", "/etc/resolv.conf"},
                              {"hostname", "/etc/hostname"}}) {
    if (!mounts_path(config, target))
      spec.mounts.push_back({sdir + "/" + file, target, config.security.read_only_rootfs, false});
  }
  PinnedNamespaces pinned = pinned_namespaces(sdir);
  if (!pod.host_network && pinned.net.empty())
    return fail(error(Code::kInvalid,
                      "the network namespace of sandbox " + record->sandbox_id + " is gone"));
  spec.net = join_or_host(pinned.net);
  spec.ipc = join_or_host(pinned.ipc);
  spec.uts = join_or_host(pinned.uts);
  if (has_pause(pod)) {
    if (pinned.pid.empty())
      return fail(
          error(Code::kInvalid, "the pid namespace of sandbox " + record->sandbox_id + " is gone"));
    spec.pid = {NamespaceMode::kJoin, pinned.pid};
  } else {
    spec.pid = pod.host_pid ? NamespaceSetting{NamespaceMode::kHost, ""}
                            : NamespaceSetting{NamespaceMode::kNew, ""};
  }

  auto process = process_spec(*record);
  if (!process.is_ok()) return fail(process.status());
  spec.process = std::move(*process);
  spec.process.tty = config.tty;
  spec.process.stdin = config.stdin;
  spec.process.stdin_once = config.stdin_once;

  if (Status s = cgroups_->create(record->cgroup, config.resources); !s.is_ok()) return fail(s);
  spec.cgroup_procs_files = cgroups_->procs_files(record->cgroup);
  if (!pod.log_directory.empty() && !config.log_path.empty()) {
    spec.log_path = pod.log_directory + "/" + config.log_path;
    const std::string parent = spec.log_path.substr(0, spec.log_path.rfind('/'));
    if (Status s = make_dirs(parent, 0755); !s.is_ok()) return fail(s);
  } else {
    spec.log_path = dir + "/container.log";
  }
  auto launched = launch_container(spec);
  if (!launched.is_ok()) return fail(launched.status());
  return Status::ok();
}

Result<ContainerStatus> LinuxRuntime::container_status(const std::string& container_id) {
  const std::string dir = container_dir(container_id);
  auto record = records_.container(dir + "/container.json");
  if (!record.is_ok()) return record.status();
  auto sandbox = sandbox_record(record->sandbox_id);
  ContainerStatus status;
  status.id = record->id;
  status.sandbox_id = record->sandbox_id;
  status.name = record->config.name;
  status.attempt = record->config.attempt;
  status.created_at = record->created_at;
  status.image = record->config.image;
  status.image_ref = record->image_ref;
  status.labels = record->config.labels;
  status.mounts = record->config.mounts;
  if (sandbox.is_ok() && !sandbox->config.log_directory.empty() &&
      !record->config.log_path.empty()) {
    status.log_path = sandbox->config.log_directory + "/" + record->config.log_path;
  } else {
    status.log_path = dir + "/container.log";
  }
  if (!record->start_error.empty()) {
    // What containerd reports for a process that never ran.
    status.state = ContainerState::kExited;
    status.exit_code = 128;
    status.reason = "StartError";
    status.message = record->start_error;
    status.finished_at = record->start_error_at;
    return status;
  }
  auto process = read_process_state(process_dir(dir));
  if (!process.is_ok()) {
    if (process.status().code() != Code::kNotFound) return process.status();
    status.state = ContainerState::kCreated;
    return status;
  }
  status.started_at = process->started_at;
  if (!process->exited) {
    status.state = process->pid > 0 ? ContainerState::kRunning : ContainerState::kUnknown;
    if (!process->error.empty()) status.message = process->error;
    return status;
  }
  status.state = ContainerState::kExited;
  status.finished_at = process->finished_at;
  status.exit_code = process->exit_code;  // 128+signal already, as the kubelet reports it
  auto stats = cgroups_->stats(record->cgroup);
  if (stats.is_ok() && stats->oom_kills > 0) {
    status.reason = "OOMKilled";
  } else {
    status.reason = status.exit_code == 0 ? "Completed" : "Error";
  }
  if (!process->error.empty()) status.message = process->error;
  return status;
}

Result<std::vector<ContainerStatus>> LinuxRuntime::list_containers() {
  auto ids = list_dir(state_root_ + "/containers");
  if (!ids.is_ok()) return ids.status();
  std::vector<ContainerStatus> containers;
  for (const std::string& id : *ids) {
    auto status = container_status(id);
    if (status.is_ok()) containers.push_back(std::move(*status));
  }
  return containers;
}

Result<PodListing> LinuxRuntime::list_pod(const PodFilter& filter) {
  ASSIGN_OR_RETURN(std::vector<std::string> sandbox_ids, list_dir(state_root_ + "/sandboxes"));
  ASSIGN_OR_RETURN(std::vector<std::string> container_ids, list_dir(state_root_ + "/containers"));
  PodListing listing;
  std::set<std::string> ids;
  for (const std::string& id : sandbox_ids) {
    auto record = sandbox_record(id);
    if (!record.is_ok() || !filter.matches(record->config)) continue;
    auto status = pod_sandbox_status(id);
    if (!status.is_ok()) continue;
    ids.insert(id);
    listing.sandboxes.push_back(std::move(*status));
  }
  for (const std::string& id : container_ids) {
    auto record = container_record(id);
    if (!record.is_ok() || !filter.matches(record->config.labels, record->sandbox_id, ids))
      continue;
    if (auto status = container_status(id); status.is_ok())
      listing.containers.push_back(std::move(*status));
  }
  return listing;
}

Status LinuxRuntime::stop_container(const std::string& container_id, std::chrono::seconds timeout) {
  const std::string dir = container_dir(container_id);
  auto record = records_.container(dir + "/container.json");
  if (!record.is_ok()) return record.status();
  auto exited = [&] {
    auto state = read_process_state(process_dir(dir));
    return !process_started(state) || state->exited;
  };
  if (exited()) return Status::ok();
  int stop_signal = SIGTERM;
  if (auto image = images_->find(record->image_ref); image.is_ok())
    stop_signal = signal_number(image->config.stop_signal).value_or(SIGTERM);
  const auto wait_until = [&](std::chrono::steady_clock::time_point deadline) {
    while (!exited() && !cancelled_ && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(kPollInterval);
    return exited();
  };
  const Status shutting_down =
      error(Code::kServiceUnavailable,
            "the runtime is shutting down; container " + container_id + " was left running");
  if (timeout.count() > 0) {
    if (Status s = signal_container(process_dir(dir), stop_signal); !s.is_ok() && !exited())
      return s;
    if (wait_until(std::chrono::steady_clock::now() + timeout)) return Status::ok();
    if (cancelled_) return shutting_down;
  }
  (void)signal_container(process_dir(dir), SIGKILL);
  (void)cgroups_->kill_all(record->cgroup);
  if (wait_until(std::chrono::steady_clock::now() + kKillWait)) return Status::ok();
  return error(Code::kTimeout, "container " + container_id + " did not exit after SIGKILL");
}

Status LinuxRuntime::remove_container(const std::string& container_id) {
  auto record = container_record(container_id);
  if (!record.is_ok() && record.status().code() != Code::kNotFound) return record.status();
  if (!record.is_ok()) return remove_container_locked(container_id);
  auto held = sandbox_lock(record->sandbox_id);
  std::lock_guard lock(*held);
  return remove_container_locked(container_id);
}

Status LinuxRuntime::remove_container_locked(const std::string& id) {
  const std::string dir = container_dir(id);
  auto record = records_.container(dir + "/container.json");
  if (!record.is_ok()) {
    if (record.status().code() == Code::kNotFound) return remove_tree(dir);
    return record.status();
  }
  auto state = read_process_state(process_dir(dir));
  if (process_started(state) && !state->exited) {
    (void)signal_container(process_dir(dir), SIGKILL);
    (void)cgroups_->kill_all(record->cgroup);
    const auto deadline = std::chrono::steady_clock::now() + kKillWait;
    while (std::chrono::steady_clock::now() < deadline) {
      auto now = read_process_state(process_dir(dir));
      if (!process_started(now) || now->exited) break;
      std::this_thread::sleep_for(kPollInterval);
    }
  }
  if (Status s = remove_container_files(process_dir(dir)); !s.is_ok()) return s;
  if (Status s = cgroups_->remove(record->cgroup); !s.is_ok()) return s;
  records_.forget(dir + "/container.json");
  return remove_tree(dir);
}

Result<ExecResult> LinuxRuntime::exec_sync(const std::string& container_id,
                                           const std::vector<std::string>& cmd,
                                           std::chrono::milliseconds timeout) {
  if (cmd.empty()) return error(Code::kInvalid, "exec needs a command");
  ASSIGN_OR_RETURN(ContainerRecord record, running_container(container_id));
  ASSIGN_OR_RETURN(ProcessSpec process, process_spec(record));
  process.args = cmd;
  return exec_in_container(process_dir(container_dir(container_id)), process, timeout);
}

Status LinuxRuntime::update_cgroup(const std::string& path, const LinuxResources& r) {
  return cgroups_->create(path, r);  // creates what is missing, else updates
}

Result<std::vector<std::string>> LinuxRuntime::list_cgroups(const std::string& path) {
  auto children = cgroups_->children(path);
  if (!children.is_ok() && children.status().code() == Code::kNotFound)
    return std::vector<std::string>{};
  return children;
}

Status LinuxRuntime::remove_cgroup(const std::string& path) {
  RETURN_IF_ERROR(cgroups_->kill_all(path));
  return cgroups_->remove(path);  // waits for the killed processes to drain
}

Status LinuxRuntime::reopen_container_log(const std::string& container_id) {
  ASSIGN_OR_RETURN(ContainerRecord record, running_container(container_id));
  (void)record;  // running: its shim can be asked
  return runtime::reopen_container_log(process_dir(container_dir(container_id)));
}

Result<ContainerStats> LinuxRuntime::container_stats(const std::string& container_id) {
  auto record = container_record(container_id);
  if (!record.is_ok()) return record.status();
  auto stats = cgroups_->stats(record->cgroup);
  if (!stats.is_ok()) return stats.status();
  ContainerStats out;
  out.cpu_usage_nanos = stats->cpu_usage_nanos;
  out.memory_usage_bytes = stats->memory_usage_bytes;
  out.memory_working_set_bytes = stats->memory_working_set_bytes;
  out.process_count = stats->pids_current;
  // The overlay's upper directory (shim/rootfs_mounts.cpp): what the container wrote.
  if (auto layer = disk_usage(process_dir(container_dir(container_id)) + "/upper"); layer.is_ok())
    out.writable_layer_bytes = layer->bytes;
  out.timestamp = std::chrono::system_clock::now();
  return out;
}

// ---- images ---------------------------------------------------------------------------------

namespace {
ImageSummary summary_of(const ImageRecord& record) {
  ImageSummary summary;
  summary.id = record.id;
  summary.references = record.references;
  summary.size = record.size;
  summary.user = record.config.user;
  summary.entrypoint = record.config.entrypoint;
  summary.cmd = record.config.cmd;
  summary.env = record.config.env;
  summary.working_dir = record.config.working_dir;
  return summary;
}
}  // namespace

Result<ImageSummary> LinuxRuntime::image_status(const std::string& ref) {
  auto record = images_->find(ref);
  if (!record.is_ok()) return record.status();
  return summary_of(*record);
}

Result<std::string> LinuxRuntime::pull_image(const std::string& ref,
                                             const std::optional<RegistryAuth>& auth) {
  if (puller_ == nullptr) {
    return error(Code::kNotImplemented,
                 "pulling " + ref +
                     " from a registry is not configured in this runtime: import the image with "
                     "`k3c images import` or put its tarball in <data-dir>/agent/images");
  }
  // Under no runtime lock: a pull takes long and the image store locks itself.
  auto record = puller_->pull(*images_, ref, auth);
  if (!record.is_ok()) return record.status();
  return record->id;
}

Result<std::vector<ImageSummary>> LinuxRuntime::list_images() {
  auto records = images_->list();
  if (!records.is_ok()) return records.status();
  std::vector<ImageSummary> images;
  for (const ImageRecord& record : *records) images.push_back(summary_of(record));
  return images;
}

Status LinuxRuntime::remove_image(const std::string& ref) {
  std::unique_lock lock(images_mu_);
  auto image = images_->find(ref);
  if (!image.is_ok()) return image.status();
  if (const std::string id = container_using_image(state_root_, image->id); !id.empty())
    return error(Code::kConflict, "image " + ref + " is in use by container " + id.substr(0, 13));
  auto removed = images_->remove(ref);
  return removed.is_ok() ? Status::ok() : removed.status();
}

}  // namespace k3c::runtime
