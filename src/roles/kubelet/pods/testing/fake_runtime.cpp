// The fake runtime for kubelet tests (see fake_runtime.h).
#include "roles/kubelet/pods/testing/fake_runtime.h"

#include "fakes/echo_tcp_server.h"
#include "fakes/host_process_session.h"

namespace k3c::kubelet::testing {

using namespace runtime;

namespace {
ImageSummary with_defaults(const std::string& ref, ImageSummary image) {
  if (image.id.empty()) image.id = "sha256:" + ref;
  if (image.references.empty()) image.references = {ref};
  if (image.cmd.empty() && image.entrypoint.empty()) image.cmd = {"/bin/run"};
  return image;
}
}  // namespace

void FakeRuntime::log(std::string call) { calls_.push_back(std::move(call)); }

void FakeRuntime::add_image(const std::string& ref, ImageSummary image) {
  std::lock_guard lock(mu_);
  images_[ref] = with_defaults(ref, std::move(image));
}

void FakeRuntime::add_pullable_image(const std::string& ref, ImageSummary image) {
  std::lock_guard lock(mu_);
  pullable_[ref] = with_defaults(ref, std::move(image));
}

void FakeRuntime::fail_pulls(const std::string& ref, const std::string& message) {
  std::lock_guard lock(mu_);
  if (message.empty()) {
    pull_failures_.erase(ref);
  } else {
    pull_failures_[ref] = message;
  }
}

void FakeRuntime::fail_sandbox_creation(const std::string& message) {
  std::lock_guard lock(mu_);
  sandbox_failure_ = message;
}

void FakeRuntime::fail_container_creation(const std::string& name, const std::string& message) {
  std::lock_guard lock(mu_);
  if (message.empty()) {
    create_failures_.erase(name);
  } else {
    create_failures_[name] = message;
  }
}

void FakeRuntime::kill_locked(Container& c, int exit_code, const std::string& reason) {
  if (c.status.state != ContainerState::kRunning) return;
  c.status.state = ContainerState::kExited;
  c.status.exit_code = exit_code;
  c.status.finished_at = clock_.wall_now();
  c.status.reason = !reason.empty() ? reason : exit_code == 0 ? "Completed" : "Error";
}

void FakeRuntime::exit(const std::string& container_id, int exit_code, const std::string& reason) {
  std::lock_guard lock(mu_);
  auto it = containers_.find(container_id);
  if (it != containers_.end()) kill_locked(it->second, exit_code, reason);
}

void FakeRuntime::break_sandbox(const std::string& sandbox_id) {
  std::lock_guard lock(mu_);
  auto it = sandboxes_.find(sandbox_id);
  if (it != sandboxes_.end()) it->second.state = SandboxState::kNotReady;
}

void FakeRuntime::set_exec_result(const std::string& container_name, ExecResult result) {
  std::lock_guard lock(mu_);
  exec_results_[container_name] = std::move(result);
}

std::string FakeRuntime::add_stray_sandbox(const std::string& pod_uid) {
  std::lock_guard lock(mu_);
  SandboxStatus s;
  s.id = "sb" + std::to_string(++next_id_);
  s.config.pod_uid = pod_uid;
  s.config.labels["io.kubernetes.pod.uid"] = pod_uid;
  s.state = SandboxState::kReady;
  s.created_at = clock_.wall_now();
  sandboxes_[s.id] = s;
  return s.id;
}

std::vector<std::string> FakeRuntime::calls() const {
  std::lock_guard lock(mu_);
  return calls_;
}

std::optional<ContainerStatus> FakeRuntime::container(const std::string& name) const {
  std::lock_guard lock(mu_);
  std::optional<ContainerStatus> newest;
  for (const auto& [id, c] : containers_) {
    if (c.status.name != name) continue;
    if (!newest || c.status.created_at > newest->created_at ||
        (c.status.created_at == newest->created_at && c.status.attempt > newest->attempt)) {
      newest = c.status;
    }
  }
  return newest;
}

std::optional<ContainerConfig> FakeRuntime::config(const std::string& container_id) const {
  std::lock_guard lock(mu_);
  auto it = containers_.find(container_id);
  if (it == containers_.end()) return std::nullopt;
  return it->second.config;
}

std::vector<ContainerStatus> FakeRuntime::containers() const {
  std::lock_guard lock(mu_);
  std::vector<ContainerStatus> out;
  for (const auto& [id, c] : containers_) out.push_back(c.status);
  return out;
}

std::vector<SandboxStatus> FakeRuntime::sandboxes() const {
  std::lock_guard lock(mu_);
  std::vector<SandboxStatus> out;
  for (const auto& [id, s] : sandboxes_) out.push_back(s);
  return out;
}

Result<std::string> FakeRuntime::run_pod_sandbox(const SandboxConfig& config) {
  std::lock_guard lock(mu_);
  log("run_pod_sandbox " + config.pod_name);
  if (!sandbox_failure_.empty()) return error(Code::kInternal, sandbox_failure_);
  SandboxStatus s;
  s.id = "sb" + std::to_string(++next_id_);
  s.config = config;
  s.state = SandboxState::kReady;
  s.created_at = clock_.wall_now();
  s.ip = config.host_network ? "" : "10.42.0." + std::to_string(next_id_);
  sandboxes_[s.id] = s;
  if (!config.cgroup_parent.empty()) pod_cgroups_.insert(config.cgroup_parent);
  return s.id;
}

Status FakeRuntime::stop_pod_sandbox(const std::string& sandbox_id) {
  std::lock_guard lock(mu_);
  log("stop_pod_sandbox " + sandbox_id);
  auto it = sandboxes_.find(sandbox_id);
  if (it == sandboxes_.end()) return error(Code::kNotFound, "sandbox " + sandbox_id);
  it->second.state = SandboxState::kNotReady;
  for (auto& [id, c] : containers_) {
    if (c.status.sandbox_id == sandbox_id) kill_locked(c, 137, "Error");
  }
  return Status::ok();
}

Status FakeRuntime::remove_pod_sandbox(const std::string& sandbox_id) {
  std::lock_guard lock(mu_);
  log("remove_pod_sandbox " + sandbox_id);
  // The pod's cgroup goes with its sandbox, as the runtime's.
  if (auto it = sandboxes_.find(sandbox_id); it != sandboxes_.end())
    pod_cgroups_.erase(it->second.config.cgroup_parent);
  sandboxes_.erase(sandbox_id);
  std::erase_if(containers_,
                [&](const auto& kv) { return kv.second.status.sandbox_id == sandbox_id; });
  return Status::ok();
}

Result<SandboxStatus> FakeRuntime::pod_sandbox_status(const std::string& sandbox_id) {
  std::lock_guard lock(mu_);
  auto it = sandboxes_.find(sandbox_id);
  if (it == sandboxes_.end()) return error(Code::kNotFound, "sandbox " + sandbox_id);
  return it->second;
}

Result<std::vector<SandboxStatus>> FakeRuntime::list_pod_sandboxes() {
  std::lock_guard lock(mu_);
  std::vector<SandboxStatus> out;
  for (const auto& [id, s] : sandboxes_) out.push_back(s);
  return out;
}

Result<std::string> FakeRuntime::create_container(const std::string& sandbox_id,
                                                  const ContainerConfig& config) {
  std::lock_guard lock(mu_);
  log("create_container " + sandbox_id + " " + config.name);
  auto sb = sandboxes_.find(sandbox_id);
  if (sb == sandboxes_.end() || sb->second.state != SandboxState::kReady) {
    return error(Code::kNotFound, "sandbox " + sandbox_id + " is not ready");
  }
  if (auto f = create_failures_.find(config.name); f != create_failures_.end()) {
    return error(Code::kInvalid, f->second);
  }
  Container c;
  c.config = config;
  c.status.id = "c" + std::to_string(++next_id_);
  c.status.sandbox_id = sandbox_id;
  c.status.name = config.name;
  c.status.attempt = config.attempt;
  c.status.state = ContainerState::kCreated;
  c.status.created_at = clock_.wall_now();
  c.status.image = config.image;
  auto image = images_.find(config.image);
  c.status.image_ref = image == images_.end() ? "" : image->second.id;
  c.status.labels = config.labels;
  c.status.mounts = config.mounts;
  if (!config.log_path.empty())
    c.status.log_path = sb->second.config.log_directory + "/" + config.log_path;
  const std::string id = c.status.id;
  containers_[id] = std::move(c);
  return id;
}

Status FakeRuntime::start_container(const std::string& container_id) {
  std::lock_guard lock(mu_);
  log("start_container " + container_id);
  auto it = containers_.find(container_id);
  if (it == containers_.end()) return error(Code::kNotFound, "container " + container_id);
  it->second.status.state = ContainerState::kRunning;
  it->second.status.started_at = clock_.wall_now();
  return Status::ok();
}

Status FakeRuntime::stop_container(const std::string& container_id, std::chrono::seconds timeout) {
  std::lock_guard lock(mu_);
  log("stop_container " + container_id + " " + std::to_string(timeout.count()) + "s");
  auto it = containers_.find(container_id);
  if (it == containers_.end()) return error(Code::kNotFound, "container " + container_id);
  kill_locked(it->second, 143, "Error");  // ended by SIGTERM
  return Status::ok();
}

Status FakeRuntime::remove_container(const std::string& container_id) {
  std::lock_guard lock(mu_);
  log("remove_container " + container_id);
  containers_.erase(container_id);
  return Status::ok();
}

Result<ContainerStatus> FakeRuntime::container_status(const std::string& container_id) {
  std::lock_guard lock(mu_);
  auto it = containers_.find(container_id);
  if (it == containers_.end()) return error(Code::kNotFound, "container " + container_id);
  return it->second.status;
}

Result<std::vector<ContainerStatus>> FakeRuntime::list_containers() {
  std::lock_guard lock(mu_);
  std::vector<ContainerStatus> out;
  for (const auto& [id, c] : containers_) out.push_back(c.status);
  return out;
}

void FakeRuntime::set_attach_command(const std::string& container_name,
                                     std::vector<std::string> argv) {
  std::lock_guard lock(mu_);
  attach_commands_[container_name] = std::move(argv);
}

namespace {
Result<std::unique_ptr<StreamSession>> host_session(const std::vector<std::string>& argv,
                                                    const StreamOptions& options) {
  auto session = std::make_unique<k3c::testing::HostProcessSession>(argv, options);
  if (!session->started()) return error(Code::kInternal, "cannot start " + argv[0]);
  return std::unique_ptr<StreamSession>(std::move(session));
}
}  // namespace

Result<std::unique_ptr<StreamSession>> FakeRuntime::exec(const std::string& container_id,
                                                         const std::vector<std::string>& cmd,
                                                         const StreamOptions& options) {
  {
    std::lock_guard lock(mu_);
    std::string line = "exec " + container_id;
    for (const auto& arg : cmd) line += " " + arg;
    log(line);
    auto it = containers_.find(container_id);
    if (it == containers_.end()) return error(Code::kNotFound, "container " + container_id);
    if (it->second.status.state != ContainerState::kRunning)
      return error(Code::kInvalid, "container " + container_id + " is not running");
  }
  if (cmd.empty()) return error(Code::kInvalid, "no command");
  return host_session(cmd, options);
}

Result<std::unique_ptr<StreamSession>> FakeRuntime::attach(const std::string& container_id,
                                                           const StreamOptions& options) {
  std::vector<std::string> argv = {"cat"};
  {
    std::lock_guard lock(mu_);
    log("attach " + container_id);
    auto it = containers_.find(container_id);
    if (it == containers_.end()) return error(Code::kNotFound, "container " + container_id);
    auto command = attach_commands_.find(it->second.status.name);
    if (command != attach_commands_.end()) argv = command->second;
  }
  return host_session(argv, options);
}

Result<int> FakeRuntime::port_forward(const std::string& sandbox_id, uint16_t port) {
  {
    std::lock_guard lock(mu_);
    log("port_forward " + sandbox_id + " " + std::to_string(port));
    if (!sandboxes_.count(sandbox_id)) return error(Code::kNotFound, "sandbox " + sandbox_id);
  }
  int fd = k3c::testing::connect_loopback(port);
  if (fd < 0)
    return error(Code::kServiceUnavailable,
                 "dial tcp 127.0.0.1:" + std::to_string(port) + ": connect: connection refused");
  return fd;
}

Result<ExecResult> FakeRuntime::exec_sync(const std::string& container_id,
                                          const std::vector<std::string>& cmd,
                                          std::chrono::milliseconds timeout) {
  std::lock_guard lock(mu_);
  std::string line = "exec_sync " + container_id;
  for (const auto& arg : cmd) line += " " + arg;
  log(line + " " + std::to_string(timeout.count() / 1000) + "s");
  auto it = containers_.find(container_id);
  if (it == containers_.end()) return error(Code::kNotFound, "container " + container_id);
  auto result = exec_results_.find(it->second.status.name);
  return result == exec_results_.end() ? ExecResult{} : result->second;
}

Status FakeRuntime::reopen_container_log(const std::string& container_id) {
  std::lock_guard lock(mu_);
  log("reopen_container_log " + container_id);
  auto it = containers_.find(container_id);
  if (it == containers_.end()) return error(Code::kNotFound, "container " + container_id);
  if (it->second.status.state != ContainerState::kRunning)
    return error(Code::kInvalid, "container " + container_id + " is not running");
  return Status::ok();
}

Status FakeRuntime::update_cgroup(const std::string& path, const runtime::LinuxResources& r) {
  std::lock_guard lock(mu_);
  cgroups_[path] = r;
  return Status::ok();
}

void FakeRuntime::add_stray_pod_cgroup(const std::string& path) {
  std::lock_guard lock(mu_);
  pod_cgroups_.insert(path);
}

std::set<std::string> FakeRuntime::pod_cgroups() const {
  std::lock_guard lock(mu_);
  return pod_cgroups_;
}

Result<std::vector<std::string>> FakeRuntime::list_cgroups(const std::string& path) {
  std::lock_guard lock(mu_);
  std::set<std::string> children;
  auto add_child = [&](const std::string& cgroup) {
    if (cgroup.size() <= path.size() + 1 || cgroup.compare(0, path.size() + 1, path + "/") != 0)
      return;
    const std::string rest = cgroup.substr(path.size() + 1);
    children.insert(rest.substr(0, rest.find('/')));
  };
  for (const auto& [cgroup, resources] : cgroups_) add_child(cgroup);
  for (const std::string& cgroup : pod_cgroups_) add_child(cgroup);
  return std::vector<std::string>(children.begin(), children.end());
}

Status FakeRuntime::remove_cgroup(const std::string& path) {
  std::lock_guard lock(mu_);
  log("remove_cgroup " + path);
  std::erase_if(pod_cgroups_, [&](const std::string& cgroup) {
    return cgroup == path || cgroup.rfind(path + "/", 0) == 0;
  });
  return Status::ok();
}

std::map<std::string, runtime::LinuxResources> FakeRuntime::cgroups() const {
  std::lock_guard lock(mu_);
  return cgroups_;
}

void FakeRuntime::set_stats(const std::string& container_name, ContainerStats stats) {
  std::lock_guard lock(mu_);
  stats_[container_name] = stats;
}

Result<ContainerStats> FakeRuntime::container_stats(const std::string& container_id) {
  std::lock_guard lock(mu_);
  auto c = containers_.find(container_id);
  if (c == containers_.end()) return error(Code::kNotFound, "container " + container_id);
  auto s = stats_.find(c->second.config.name);
  if (s == stats_.end()) return error(Code::kNotImplemented, "stats are not faked");
  return s->second;
}

Result<ImageSummary> FakeRuntime::image_status(const std::string& ref) {
  std::lock_guard lock(mu_);
  auto it = images_.find(ref);
  if (it == images_.end()) return error(Code::kNotFound, "image " + ref + " not found");
  return it->second;
}

Result<std::string> FakeRuntime::pull_image(const std::string& ref,
                                            const std::optional<RegistryAuth>& auth) {
  std::lock_guard lock(mu_);
  log("pull_image " + ref + (auth ? " as " + auth->username : ""));
  if (auto f = pull_failures_.find(ref); f != pull_failures_.end()) {
    return error(Code::kNotFound, f->second);
  }
  auto it = pullable_.find(ref);
  if (it == pullable_.end()) return error(Code::kNotFound, "manifest unknown: " + ref);
  images_[ref] = it->second;
  return it->second.id;
}

Result<std::vector<ImageSummary>> FakeRuntime::list_images() {
  std::lock_guard lock(mu_);
  std::vector<ImageSummary> out;
  for (const auto& [ref, i] : images_) out.push_back(i);
  return out;
}

Status FakeRuntime::remove_image(const std::string& ref) {
  std::lock_guard lock(mu_);
  log("remove_image " + ref);
  // By reference or by id, and refused while a container uses it, as the real runtime.
  for (auto it = images_.begin(); it != images_.end();) {
    if (it->first != ref && it->second.id != ref) {
      ++it;
      continue;
    }
    for (const auto& [id, c] : containers_) {
      if (c.status.image_ref == it->second.id)
        return error(Code::kConflict, "image " + ref + " is in use by container " + id);
    }
    it = images_.erase(it);
  }
  return Status::ok();
}

}  // namespace k3c::kubelet::testing
