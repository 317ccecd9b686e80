// Strategic merge patch and server-side apply driven by the real kubectl (1.27 and 1.33)
// against a real `k3c server`: client-side apply of a changed file, edit, set image/env,
// patch --type strategic with directives, label/annotate, diff; apply --server-side with
// field managers, conflicts and --force-conflicts.
#include <sys/stat.h>

#include <catch2/catch.hpp>

#include "kubectl_runner.h"

namespace k3c {
namespace {

std::string deployment(const std::string& image, const std::string& labels, const std::string& env,
                       const std::string& ports) {
  return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels: " + labels +
         "\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: web}}\n  template:\n"
         "    metadata: {labels: {app: web}}\n    spec:\n      containers:\n"
         "      - name: web\n        image: " +
         image + "\n        env: " + env + "\n        ports: " + ports +
         "\n      - name: side\n        image: busybox\n";
}

TEST_CASE("strategic merge patch through kubectl") {
  auto version = GENERATE(as<std::string>{}, "1.27", "1.33");
  INFO("kubectl " << version);
  KubectlSandbox session(version);
  Sandbox& box = session.box;
  const KubectlRunner& kubectl = session.kubectl;
  auto get = [&](const std::string& jsonpath) {
    return kubectl({"get", "deploy", "web", "-o", "jsonpath=" + jsonpath}).out;
  };
  const std::string file = box.path("deploy.yaml");
  write_file(file, deployment("nginx:1", "{app: web, tier: front}",
                              "[{name: A, value: '1'}, {name: B, value: '2'}]",
                              "[{containerPort: 80}, {containerPort: 443}]"));
  auto created = kubectl({"apply", "-f", file});
  REQUIRE(created.exit_code == 0);
  CHECK(created.out == "deployment.apps/web created\n");

  SECTION("apply a changed file: image, env added and removed, port and label removed") {
    write_file(file,
               deployment("nginx:2", "{app: web}", "[{name: A, value: '1'}, {name: C, value: '3'}]",
                          "[{containerPort: 80}]"));
    auto applied = kubectl({"apply", "-f", file});
    INFO(applied.err);
    CHECK(applied.exit_code == 0);
    CHECK(applied.out == "deployment.apps/web configured\n");
    CHECK(get("{.spec.template.spec.containers[*].name}") == "web side");
    CHECK(get("{.spec.template.spec.containers[0].image}") == "nginx:2");
    CHECK(get("{.spec.template.spec.containers[0].env[*].name}") == "A C");
    CHECK(get("{.spec.template.spec.containers[0].ports[*].containerPort}") == "80");
    CHECK(get("{.metadata.labels}") == R"({"app":"web"})");
    auto unchanged = kubectl({"apply", "-f", file});
    CHECK(unchanged.out == "deployment.apps/web unchanged\n");

    // kubectl diff: a server-side dry run of the patch, compared with the live object.
    write_file(file, deployment("nginx:3", "{app: web}", "[{name: A, value: '1'}]",
                                "[{containerPort: 80}]"));
    auto diff = kubectl({"diff", "-f", file});
    INFO(diff.err);
    CHECK(diff.exit_code == 1);  // differences found
    CHECK_THAT(diff.out, Catch::Contains("-        image: nginx:2"));
    CHECK_THAT(diff.out, Catch::Contains("+        image: nginx:3"));
    CHECK_THAT(diff.out, Catch::Contains("-        - name: C"));
    CHECK(get("{.spec.template.spec.containers[0].image}") == "nginx:2");  // dry run only
  }

  SECTION("kubectl edit with an editor script") {
    const std::string editor = box.path("editor.sh");
    write_file(editor, "#!/bin/sh\nsed -i 's/image: nginx:1/image: nginx:edited/' \"$1\"\n");
    chmod(editor.c_str(), 0755);
    KubectlRunner editing{box, kubectl.binary, {{"EDITOR", editor}, {"KUBE_EDITOR", editor}}};
    auto edited = editing({"edit", "deploy", "web"});
    INFO(edited.err);
    CHECK(edited.exit_code == 0);
    CHECK(edited.out == "deployment.apps/web edited\n");
    CHECK(get("{.spec.template.spec.containers[*].image}") == "nginx:edited busybox");
  }

  SECTION("set image, set env") {
    CHECK(kubectl({"set", "image", "deployment/web", "web=nginx:set"}).exit_code == 0);
    CHECK(get("{.spec.template.spec.containers[*].image}") == "nginx:set busybox");
    CHECK(kubectl({"set", "env", "deployment/web", "-c", "web", "D=4"}).exit_code == 0);
    CHECK(get("{.spec.template.spec.containers[0].env[*].name}") == "A B D");
    auto removed = kubectl({"set", "env", "deployment/web", "-c", "web", "A-"});
    INFO(removed.err);
    CHECK(removed.exit_code == 0);
    CHECK(get("{.spec.template.spec.containers[0].env[*].name}") == "B D");
  }

  SECTION("patch --type strategic with directives") {
    auto deleted = kubectl({"patch", "deploy", "web", "--type", "strategic", "-p",
                            R"({"spec":{"template":{"spec":{"containers":[)"
                            R"({"name":"side","$patch":"delete"}]}}}})"});
    INFO(deleted.err);
    CHECK(deleted.exit_code == 0);
    CHECK(get("{.spec.template.spec.containers[*].name}") == "web");
    auto port = kubectl({"patch", "deploy", "web", "-p",
                         R"({"spec":{"template":{"spec":{"containers":[{"name":"web",)"
                         R"("ports":[{"containerPort":443,"$patch":"delete"}]}]}}}})"});
    CHECK(port.exit_code == 0);
    CHECK(get("{.spec.template.spec.containers[0].ports[*].containerPort}") == "80");
    auto bad = kubectl({"patch", "deploy", "web", "-p",
                        R"({"spec":{"template":{"spec":{"containers":[{"$patch":"delete"}]}}}})"});
    CHECK(bad.exit_code == 1);
    CHECK_THAT(bad.err, Catch::Contains("Error from server (BadRequest): map: map[$patch:delete] "
                                        "does not contain declared merge key: name"));
  }

  SECTION("label and annotate: add, overwrite, remove") {
    CHECK(kubectl({"label", "deploy", "web", "env=prod"}).exit_code == 0);
    auto clash = kubectl({"label", "deploy", "web", "env=dev"});
    CHECK(clash.exit_code == 1);
    CHECK(kubectl({"label", "deploy", "web", "env=dev", "--overwrite"}).exit_code == 0);
    CHECK(kubectl({"label", "deploy", "web", "tier-"}).exit_code == 0);
    CHECK(get("{.metadata.labels}") == R"({"app":"web","env":"dev"})");
    CHECK(kubectl({"annotate", "deploy", "web", "note=a"}).exit_code == 0);
    CHECK(kubectl({"annotate", "deploy", "web", "note=b", "--overwrite"}).exit_code == 0);
    CHECK(get("{.metadata.annotations.note}") == "b");
    CHECK(kubectl({"annotate", "deploy", "web", "note-"}).exit_code == 0);
    CHECK(get("{.metadata.annotations.note}") == "");
  }
}

TEST_CASE("server-side apply through kubectl") {
  auto version = GENERATE(as<std::string>{}, "1.27", "1.33");
  INFO("kubectl " << version);
  KubectlSandbox session(version);
  Sandbox& box = session.box;
  const KubectlRunner& kubectl = session.kubectl;
  auto data = [&] { return kubectl({"get", "cm", "settings", "-o", "jsonpath={.data}"}).out; };
  auto managed = [&] {
    return kubectl({"get", "cm", "settings", "-o", "yaml", "--show-managed-fields"}).out;
  };
  const std::string file = box.path("cm.yaml");
  write_file(file,
             "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  labels: {app: web}\n"
             "data:\n  a: '1'\n  b: '2'\n");
  auto created = kubectl({"apply", "--server-side", "-f", file});
  INFO(created.err);
  REQUIRE(created.exit_code == 0);
  CHECK(created.out == "configmap/settings serverside-applied\n");
  CHECK(data() == R"({"a":"1","b":"2"})");
  std::string fields = managed();
  CHECK_THAT(fields, Catch::Contains("manager: kubectl\n"));
  CHECK_THAT(fields, Catch::Contains("operation: Apply"));
  CHECK_THAT(fields, Catch::Contains("fieldsType: FieldsV1"));
  CHECK_THAT(fields, Catch::Contains("f:b: {}"));
  // Without --show-managed-fields kubectl hides them, as against a real cluster.
  CHECK_THAT(kubectl({"get", "cm", "settings", "-o", "yaml"}).out,
             !Catch::Contains("managedFields"));

  // Applying again with b dropped and c added: b goes (no one else owns it).
  write_file(file,
             "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  labels: {app: web}\n"
             "data:\n  a: '1'\n  c: '3'\n");
  auto again = kubectl({"apply", "--server-side", "-f", file});
  INFO(again.err);
  CHECK(again.exit_code == 0);
  CHECK(data() == R"({"a":"1","c":"3"})");

  // Another manager changing a field kubectl owns: 409 unless forced.
  const std::string other = box.path("other.yaml");
  write_file(other,
             "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: '9'\n");
  auto refused = kubectl({"apply", "--server-side", "--field-manager", "other", "-f", other});
  CHECK(refused.exit_code == 1);
  CHECK_THAT(refused.err, Catch::Contains("Apply failed with 1 conflict: conflict with "
                                          "\"kubectl\": .data.a"));
  CHECK(data() == R"({"a":"1","c":"3"})");
  auto forced = kubectl(
      {"apply", "--server-side", "--field-manager", "other", "--force-conflicts", "-f", other});
  INFO(forced.err);
  CHECK(forced.exit_code == 0);
  CHECK(data() == R"({"a":"9","c":"3"})");
  CHECK_THAT(managed(), Catch::Contains("manager: other"));
  // kubectl lost .data.a: its own apply now conflicts with "other".
  auto back = kubectl({"apply", "--server-side", "-f", file});
  CHECK(back.exit_code == 1);
  CHECK_THAT(back.err, Catch::Contains("conflict with \"other\": .data.a"));

  // Non-apply writes record Update entries under their field manager.
  CHECK(kubectl({"label", "cm", "settings", "tier=front"}).exit_code == 0);
  fields = managed();
  CHECK_THAT(fields, Catch::Contains("manager: kubectl-label"));
  CHECK_THAT(fields, Catch::Contains("operation: Update"));
  CHECK_THAT(fields, Catch::Contains("f:tier: {}"));

  // Switching from client-side to server-side apply: kubectl takes over what it applied.
  const std::string legacy = box.path("legacy.yaml");
  write_file(legacy,
             "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: legacy\ndata:\n  a: '1'\n");
  CHECK(kubectl({"apply", "-f", legacy}).exit_code == 0);
  write_file(legacy,
             "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: legacy\ndata:\n  a: '2'\n");
  auto switched = kubectl({"apply", "--server-side", "-f", legacy});
  INFO(switched.err);
  CHECK(switched.exit_code == 0);
  CHECK(kubectl({"get", "cm", "legacy", "-o", "jsonpath={.data.a}"}).out == "2");

  // Lists: a Deployment applied twice with a changed container.
  const std::string deploy = box.path("deploy.yaml");
  write_file(deploy, deployment("nginx:1", "{app: web}", "[{name: A, value: '1'}]",
                                "[{containerPort: 80}]"));
  auto d1 = kubectl({"apply", "--server-side", "-f", deploy});
  INFO(d1.err);
  CHECK(d1.exit_code == 0);
  write_file(deploy, deployment("nginx:2", "{app: web}", "[{name: B, value: '2'}]",
                                "[{containerPort: 80}, {containerPort: 443}]"));
  auto d2 = kubectl({"apply", "--server-side", "-f", deploy});
  INFO(d2.err);
  CHECK(d2.exit_code == 0);
  auto get = [&](const std::string& jsonpath) {
    return kubectl({"get", "deploy", "web", "-o", "jsonpath=" + jsonpath}).out;
  };
  CHECK(get("{.spec.template.spec.containers[*].name}") == "web side");
  CHECK(get("{.spec.template.spec.containers[0].image}") == "nginx:2");
  CHECK(get("{.spec.template.spec.containers[0].env[*].name}") == "B");
  CHECK(get("{.spec.template.spec.containers[0].ports[*].containerPort}") == "80 443");
  CHECK_THAT(kubectl({"get", "deploy", "web", "-o", "yaml", "--show-managed-fields"}).out,
             Catch::Contains(R"(k:{"containerPort":443,"protocol":"TCP"}:)"));
}

}  // namespace
}  // namespace k3c
