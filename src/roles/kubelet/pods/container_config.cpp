// A container's runtime config (see container_config.h).
#include "roles/kubelet/pods/container_config.h"

#include <cstdio>

#include "api/pod_qos.h"
#include "roles/kubelet/pods/labels.h"
#include "runtime/cgroups/resource_math.h"

namespace k3c::kubelet {

using nlohmann::json;

namespace {

template <typename T>
std::optional<T> field(const json& container_sc, const json& pod_sc, const char* name) {
  for (const json* sc : {&container_sc, &pod_sc}) {
    auto it = sc->find(name);
    if (it != sc->end() && !it->is_null()) return it->get<T>();
  }
  return std::nullopt;
}

std::vector<std::string> strings(const json& list) {
  std::vector<std::string> out;
  if (list.is_array()) {
    for (const auto& s : list) {
      if (s.is_string()) out.push_back(s.get<std::string>());
    }
  }
  return out;
}

// The container's seccompProfile, else the pod's; null when neither sets a type.
json seccomp_profile(const json& pod_sc, const json& sc) {
  for (const json* s : {&sc, &pod_sc}) {
    auto it = s->find("seccompProfile");
    if (it == s->end() || !it->is_object()) continue;
    auto type = it->find("type");
    if (type != it->end() && type->is_string() && !type->get_ref<const std::string&>().empty())
      return *it;
  }
  return json();
}

std::string seccomp_type(const json& profile) {
  return profile.is_object() ? profile.value("type", "") : "";
}

runtime::SecurityConfig security(const json& pod, const json& container,
                                 const std::string& seccomp_root) {
  const json pod_sc = pod["spec"].value("securityContext", json::object());
  const json sc = container.value("securityContext", json::object());
  runtime::SecurityConfig out;
  out.run_as_user = field<int64_t>(sc, pod_sc, "runAsUser");
  out.run_as_group = field<int64_t>(sc, pod_sc, "runAsGroup");
  for (const auto& g : pod_sc.value("supplementalGroups", json::array())) {
    if (g.is_number_integer()) out.supplemental_groups.push_back(g.get<int64_t>());
  }
  if (auto fs_group = pod_sc.find("fsGroup");
      fs_group != pod_sc.end() && fs_group->is_number_integer()) {
    out.supplemental_groups.push_back(fs_group->get<int64_t>());
  }
  out.privileged = sc.value("privileged", false);
  out.read_only_rootfs = sc.value("readOnlyRootFilesystem", false);
  out.no_new_privs = sc.contains("allowPrivilegeEscalation") &&
                     sc["allowPrivilegeEscalation"].is_boolean() &&
                     !sc["allowPrivilegeEscalation"].get<bool>();
  const json caps = sc.value("capabilities", json::object());
  out.add_capabilities = strings(caps.value("add", json::array()));
  out.drop_capabilities = strings(caps.value("drop", json::array()));
  // Upstream's default without a profile is Unconfined (the kubelet's SeccompDefault is off);
  // a privileged container is never filtered. A Localhost profile without a usable
  // localhostProfile never gets here (unsupported_security).
  const json profile = seccomp_profile(pod_sc, sc);
  const std::string type = seccomp_type(profile);
  out.seccomp = runtime::SeccompProfile::kUnconfined;
  if (type == "RuntimeDefault" && !out.privileged) {
    out.seccomp = runtime::SeccompProfile::kRuntimeDefault;
  } else if (type == "Localhost" && !out.privileged) {
    out.seccomp = runtime::SeccompProfile::kLocalhost;
    out.seccomp_localhost_path = seccomp_root + "/" + profile.value("localhostProfile", "");
  }
  return out;
}

}  // namespace

Status unsupported_security(const json& pod, const json& container) {
  const json pod_sc = pod["spec"].value("securityContext", json::object());
  const json sc = container.value("securityContext", json::object());
  const json profile = seccomp_profile(pod_sc, sc);
  if (seccomp_type(profile) != "Localhost") return Status::ok();
  const json local = profile.value("localhostProfile", json());
  if (!local.is_string() || local.get_ref<const std::string&>().empty()) {
    return error(Code::kInvalid,
                 "localhostProfile must be set if seccompProfile type is Localhost.");
  }
  // Upstream's ValidateLocalDescendingPath: relative, and no ".." element.
  const std::string& path = local.get_ref<const std::string&>();
  bool climbs = path.front() == '/';
  for (size_t start = 0; start <= path.size();) {
    const size_t end = std::min(path.find('/', start), path.size());
    climbs |= path.substr(start, end - start) == "..";
    start = end + 1;
  }
  if (climbs) {
    return error(Code::kInvalid, "localhostProfile \"" + path +
                                     "\" must be a relative path inside the profile directory");
  }
  return Status::ok();
}

Status verify_run_as_non_root(const json& pod, const json& container,
                              const std::string& image_user) {
  const json pod_sc = pod["spec"].value("securityContext", json::object());
  const json sc = container.value("securityContext", json::object());
  if (!field<bool>(sc, pod_sc, "runAsNonRoot").value_or(false)) return Status::ok();
  // Upstream's format.Pod: name_namespace(uid).
  const json meta = pod.value("metadata", json::object());
  const std::string who = " (pod: \"" + meta.value("name", "") + "_" + meta.value("namespace", "") +
                          "(" + meta.value("uid", "") +
                          ")\", container: " + container.value("name", "") + ")";
  if (auto uid = field<int64_t>(sc, pod_sc, "runAsUser")) {
    if (*uid == 0)
      return error(Code::kInvalid, "container's runAsUser breaks non-root policy" + who);
    return Status::ok();
  }
  const std::string user = image_user.substr(0, image_user.find(':'));
  const bool numeric = !user.empty() && user.find_first_not_of("0123456789") == std::string::npos;
  if (!user.empty() && !numeric) {
    return error(Code::kInvalid, "container has runAsNonRoot and image has non-numeric user (" +
                                     user + "), cannot verify user is non-root" + who);
  }
  if (user.empty() || user.find_first_not_of('0') == std::string::npos)
    return error(Code::kInvalid, "container has runAsNonRoot and image will run as root" + who);
  return Status::ok();
}

std::string container_spec_hash(const json& container) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : container.dump()) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

runtime::ContainerConfig container_config(const json& pod, const json& container, uint32_t attempt,
                                          ResolvedProcess process,
                                          const std::string& seccomp_root) {
  const json meta = pod.value("metadata", json::object());
  runtime::ContainerConfig c;
  c.name = container.value("name", "");
  c.attempt = attempt;
  c.image = container.value("image", "");
  c.args = std::move(process.argv);
  c.env = std::move(process.env);
  c.working_dir = container.value("workingDir", "");
  c.stdin = container.value("stdin", false);
  c.stdin_once = container.value("stdinOnce", false);
  c.tty = container.value("tty", false);
  const api::ContainerCgroupAmounts amounts = api::container_cgroup_amounts(container);
  c.resources = runtime::container_linux_resources(
      amounts.cpu_request_milli, amounts.cpu_limit_milli, amounts.memory_limit_bytes);
  c.security = security(pod, container, seccomp_root);
  c.log_path = c.name + "/" + std::to_string(attempt) + ".log";
  c.labels = {{labels::kPodUid, meta.value("uid", "")},
              {labels::kPodName, meta.value("name", "")},
              {labels::kPodNamespace, meta.value("namespace", "")},
              {labels::kContainerName, c.name},
              {labels::kContainerHash, container_spec_hash(container)}};
  return c;
}

}  // namespace k3c::kubelet
