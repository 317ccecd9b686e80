// The kubelet's securityContext mapping: container fields over the pod's, and what it refuses.
#include "roles/kubelet/pods/container_config.h"

#include <catch2/catch.hpp>

namespace k3c::kubelet {
namespace {

using nlohmann::json;

runtime::SecurityConfig security_of(const json& pod_sc, const json& container_sc) {
  const json pod = {{"metadata", {{"name", "p"}, {"namespace", "default"}, {"uid", "u1"}}},
                    {"spec", {{"securityContext", pod_sc}}}};
  const json container = {{"name", "c"}, {"image", "busybox"}, {"securityContext", container_sc}};
  return container_config(pod, container, 0, {{"/bin/true"}, {}}, "/var/lib/kubelet/seccomp")
      .security;
}

TEST_CASE("securityContext: the container's fields win over the pod's") {
  auto s = security_of({{"runAsUser", 1000}, {"runAsGroup", 2000}, {"fsGroup", 3000}},
                       {{"runAsUser", 1001}});
  CHECK(s.run_as_user == 1001);
  CHECK(s.run_as_group == 2000);
  CHECK(s.supplemental_groups == std::vector<int64_t>{3000});
}

TEST_CASE("securityContext: privileges, root filesystem and capabilities") {
  auto s =
      security_of(json::object(), {{"allowPrivilegeEscalation", false},
                                   {"readOnlyRootFilesystem", true},
                                   {"capabilities", {{"add", {"NET_ADMIN"}}, {"drop", {"ALL"}}}}});
  CHECK(s.no_new_privs);
  CHECK(s.read_only_rootfs);
  CHECK_FALSE(s.privileged);
  CHECK(s.add_capabilities == std::vector<std::string>{"NET_ADMIN"});
  CHECK(s.drop_capabilities == std::vector<std::string>{"ALL"});
  // Not set, or true: privilege escalation stays possible (upstream's default).
  CHECK_FALSE(security_of(json::object(), json::object()).no_new_privs);
  CHECK_FALSE(security_of(json::object(), {{"allowPrivilegeEscalation", true}}).no_new_privs);
}

TEST_CASE("securityContext: seccomp RuntimeDefault, Unconfined and the default") {
  using runtime::SeccompProfile;
  const json runtime_default = {{"seccompProfile", {{"type", "RuntimeDefault"}}}};
  const json unconfined = {{"seccompProfile", {{"type", "Unconfined"}}}};
  CHECK(security_of(json::object(), json::object()).seccomp == SeccompProfile::kUnconfined);
  CHECK(security_of(runtime_default, json::object()).seccomp == SeccompProfile::kRuntimeDefault);
  CHECK(security_of(runtime_default, unconfined).seccomp == SeccompProfile::kUnconfined);
  // A privileged container is never filtered.
  json privileged = runtime_default;
  privileged["privileged"] = true;
  CHECK(security_of(json::object(), privileged).seccomp == SeccompProfile::kUnconfined);
}

TEST_CASE("a Localhost seccomp profile names a file under the profile root") {
  using runtime::SeccompProfile;
  const auto localhost = [](json profile) {
    return json{{"seccompProfile", {{"type", "Localhost"}, {"localhostProfile", profile}}}};
  };
  const auto s = security_of(localhost("profiles/audit.json"), json::object());
  CHECK(s.seccomp == SeccompProfile::kLocalhost);
  CHECK(s.seccomp_localhost_path == "/var/lib/kubelet/seccomp/profiles/audit.json");
  // The container's own RuntimeDefault overrides the pod's Localhost; privileged is never
  // filtered.
  CHECK(security_of(localhost("x.json"), {{"seccompProfile", {{"type", "RuntimeDefault"}}}})
            .seccomp == SeccompProfile::kRuntimeDefault);
  CHECK(security_of(localhost("x.json"), {{"privileged", true}}).seccomp ==
        SeccompProfile::kUnconfined);

  const json container = {{"name", "c"}, {"image", "busybox"}};
  const auto refusal = [&](json profile) {
    return unsupported_security({{"spec", {{"securityContext", localhost(profile)}}}}, container)
        .message();
  };
  CHECK(refusal("x.json").empty());
  CHECK(refusal("a/b..c.json").empty());
  CHECK(refusal(nullptr) == "localhostProfile must be set if seccompProfile type is Localhost.");
  CHECK(refusal("") == "localhostProfile must be set if seccompProfile type is Localhost.");
  for (const char* escape : {"../x.json", "a/../../x.json", "/etc/x.json", ".."}) {
    INFO(escape);
    CHECK(refusal(escape).find("must be a relative path") != std::string::npos);
  }
}

TEST_CASE("runAsNonRoot: a root runAsUser or image user is refused with upstream's words") {
  auto check = [](const json& pod_sc, const json& container_sc, const std::string& image_user) {
    const json pod = {{"metadata", {{"name", "p"}, {"namespace", "default"}, {"uid", "u1"}}},
                      {"spec", {{"securityContext", pod_sc}}}};
    const json container = {{"name", "c"}, {"securityContext", container_sc}};
    return verify_run_as_non_root(pod, container, image_user);
  };
  const json non_root = {{"runAsNonRoot", true}};
  const std::string who = " (pod: \"p_default(u1)\", container: c)";
  // Not asked for, or turned off by the container: anything runs.
  CHECK(check(json::object(), json::object(), "").is_ok());
  CHECK(check(non_root, {{"runAsNonRoot", false}}, "").is_ok());
  CHECK(check(non_root, json::object(), "").message() ==
        "container has runAsNonRoot and image will run as root" + who);
  CHECK(check(json::object(), non_root, "0:0").message() ==
        "container has runAsNonRoot and image will run as root" + who);
  CHECK(check(non_root, json::object(), "1000:1000").is_ok());
  CHECK(check(non_root, json::object(), "nobody").message() ==
        "container has runAsNonRoot and image has non-numeric user (nobody), cannot verify user "
        "is non-root" +
            who);
  // A runAsUser decides before the image's user; the container's over the pod's.
  CHECK(check({{"runAsNonRoot", true}, {"runAsUser", 1000}}, json::object(), "").is_ok());
  CHECK(check({{"runAsNonRoot", true}, {"runAsUser", 1000}}, {{"runAsUser", 0}}, "nobody")
            .message() == "container's runAsUser breaks non-root policy" + who);
}

}  // namespace
}  // namespace k3c::kubelet
