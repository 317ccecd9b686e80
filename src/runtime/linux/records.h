// What the runtime keeps on disk per sandbox and per container, so that a restarted k3c
// finds its pods again: <state>/sandboxes/<id>/sandbox.json and
// <state>/containers/<id>/container.json (atomic rewrites). The process side of a container
// (pids, exit status) is the shim's, in the same directory.
#pragma once

#include <string>

#include "core/status.h"
#include "runtime/runtime_service.h"

namespace k3c::runtime {

struct SandboxRecord {
  std::string id;
  SandboxConfig config;
  WallTime created_at{};
  bool stopped = false;
};

struct ContainerRecord {
  std::string id;
  std::string sandbox_id;
  ContainerConfig config;
  std::string image_ref;  // the image id it was created from
  std::string snapshot;   // the image's root fs (overlay lower dir)
  std::string cgroup;     // relative cgroup path
  WallTime created_at{};
  // Set when start failed before the process ran: the container is reported as exited with
  // reason StartError and this message.
  std::string start_error;
  WallTime start_error_at{};
  // A Localhost seccomp profile's JSON, read from its file at creation (as containerd puts
  // it in the OCI spec): the container's start and every exec use this text.
  std::string seccomp_profile;
};

Status save_record(const std::string& path, const SandboxRecord& record);
Status save_record(const std::string& path, const ContainerRecord& record);
// kNotFound when missing; kCorrupt when the file is not a record.
Result<SandboxRecord> load_sandbox_record(const std::string& path);
Result<ContainerRecord> load_container_record(const std::string& path);

// The runtime's records and state for a k3c data dir (LinuxRuntimeConfig's default state_root).
inline std::string runtime_state_root(const std::string& data_dir) {
  return data_dir + "/agent/runtime";
}

// The id of a container under <state_root>/containers whose record uses the image `image_id`,
// "" when none does. Read from the records on disk: the server's runtime and `k3c images rm`
// (another process) both ask before an image goes.
std::string container_using_image(const std::string& state_root, const std::string& image_id);

// The shim's own directory inside the container's (launch_container creates and owns it).
inline std::string process_dir(const std::string& container_dir) {
  return container_dir + "/process";
}

// A fresh 64-hex id, as containerd's.
std::string new_runtime_id();

}  // namespace k3c::runtime
