#include "runtime/linux/records.h"

#include <nlohmann/json.hpp>

#include "core/ids.h"
#include "runtime/files.h"
#include "runtime/seccomp_profile_json.h"

// WallTime (a std:: type, so ADL cannot find a to_json in our namespace) as nanoseconds since
// the epoch.
template <>
struct nlohmann::adl_serializer<k3c::runtime::WallTime> {
  static void to_json(json& j, const k3c::runtime::WallTime& t) {
    j = std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
  }
  static void from_json(const json& j, k3c::runtime::WallTime& t) {
    t = k3c::runtime::WallTime(std::chrono::duration_cast<k3c::runtime::WallTime::duration>(
        std::chrono::nanoseconds(j.get<int64_t>())));
  }
};

// Optional fields as null or the value (nlohmann 3.11.2 has no std::optional support).
template <typename T>
struct nlohmann::adl_serializer<std::optional<T>> {
  static void to_json(json& j, const std::optional<T>& value) {
    if (value) {
      j = *value;
    } else {
      j = nullptr;
    }
  }
  static void from_json(const json& j, std::optional<T>& value) {
    if (j.is_null()) {
      value.reset();
    } else {
      value = j.get<T>();
    }
  }
};

namespace k3c::runtime {

using nlohmann::json;

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(LinuxResources, cpu_shares, cpu_quota_us,
                                                cpu_period_us, memory_limit_bytes, pids_limit)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SandboxConfig, pod_uid, pod_name, pod_namespace,
                                                attempt, hostname, host_network, host_pid, host_ipc,
                                                share_process_namespace, resolv_conf, hosts,
                                                cgroup_parent, pod_resources, log_directory, labels)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Mount, host_path, container_path, read_only,
                                                recursive)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SecurityConfig, run_as_user, run_as_group,
                                                supplemental_groups, privileged, read_only_rootfs,
                                                no_new_privs, add_capabilities, drop_capabilities,
                                                seccomp, seccomp_localhost_path)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ContainerConfig, name, attempt, image, args, env,
                                                working_dir, mounts, stdin, stdin_once, tty,
                                                resources, security, log_path, labels)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(SandboxRecord, id, config, created_at, stopped)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ContainerRecord, id, sandbox_id, config, image_ref,
                                                snapshot, cgroup, created_at, start_error,
                                                start_error_at, seccomp_profile)

namespace {

constexpr size_t kMaxRecordBytes = 4 << 20;

template <typename Record>
Result<Record> load(const std::string& path) {
  auto bytes = read_file(path, kMaxRecordBytes);
  if (!bytes.is_ok()) return bytes.status();
  try {
    return json::parse(*bytes).get<Record>();
  } catch (const std::exception& e) {
    return error(Code::kCorrupt, path + ": not a runtime record: " + e.what());
  }
}

}  // namespace

Status save_record(const std::string& path, const SandboxRecord& record) {
  return write_file_atomic(path, json(record).dump());
}
Status save_record(const std::string& path, const ContainerRecord& record) {
  return write_file_atomic(path, json(record).dump());
}
Result<SandboxRecord> load_sandbox_record(const std::string& path) {
  return load<SandboxRecord>(path);
}
Result<ContainerRecord> load_container_record(const std::string& path) {
  return load<ContainerRecord>(path);
}

std::string container_using_image(const std::string& state_root, const std::string& image_id) {
  auto ids = list_dir(state_root + "/containers");
  if (!ids.is_ok()) return "";  // no containers directory: no containers
  for (const std::string& id : *ids) {
    auto record = load_container_record(state_root + "/containers/" + id + "/container.json");
    if (record.is_ok() && record->image_ref == image_id) return id;
  }
  return "";
}

std::string new_runtime_id() {
  std::string id;
  while (id.size() < 64)
    for (char c : new_uuid())
      if (c != '-' && id.size() < 64) id += c;
  return id;
}

}  // namespace k3c::runtime
