// Tests for ResourceRegistry: the built-in data against the facts a default v1.32
// kube-apiserver serves (its discovery documents and etcd key layout), lookups, and new
// snapshots for CRDs.
#include "api/registry.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace k3c::api {
namespace {

using Strings = std::vector<std::string>;
using VerbSet = std::set<std::string, std::less<>>;

const VerbSet kAllVerbs = {"create", "delete", "deletecollection", "get",
                           "list",   "patch",  "update",           "watch"};
const VerbSet kStatusVerbs = {"get", "patch", "update"};

ResourceRegistry registry_builtin() {
  auto registry = ResourceRegistry::builtin();
  INFO(registry.status().to_string());
  REQUIRE(registry.is_ok());
  return std::move(registry).value();
}

const Resource& must_find(const ResourceRegistry& registry, const std::string& group,
                          const std::string& version, const std::string& plural) {
  const Resource* r = registry.find(group, version, plural);
  INFO(group << "/" << version << " " << plural);
  REQUIRE(r != nullptr);
  return *r;
}

Strings subresource_names(const Resource& r) {
  Strings names;
  for (const auto& sub : r.subresources) names.push_back(sub.name);
  return names;
}

Resource custom_resource(std::string group, std::string version, std::string plural,
                         std::string kind) {
  Resource r;
  r.group = std::move(group);
  r.version = std::move(version);
  r.plural = std::move(plural);
  r.kind = std::move(kind);
  r.singular = "widget";
  r.namespaced = true;
  r.verbs = kAllVerbs;
  r.storage_prefix = custom_resource_storage_prefix(r.group, r.plural);
  return r;
}

TEST_CASE("every resource of the v1.32 list is served") {
  const ResourceRegistry registry = registry_builtin();
  const std::vector<Strings> expected = {
      {"", "v1", "namespaces"},
      {"", "v1", "pods"},
      {"", "v1", "services"},
      {"", "v1", "endpoints"},
      {"", "v1", "nodes"},
      {"", "v1", "configmaps"},
      {"", "v1", "secrets"},
      {"", "v1", "serviceaccounts"},
      {"", "v1", "events"},
      {"", "v1", "persistentvolumes"},
      {"", "v1", "persistentvolumeclaims"},
      {"", "v1", "limitranges"},
      {"", "v1", "resourcequotas"},
      {"", "v1", "replicationcontrollers"},
      {"", "v1", "podtemplates"},
      {"", "v1", "componentstatuses"},
      {"", "v1", "bindings"},
      {"apps", "v1", "deployments"},
      {"apps", "v1", "replicasets"},
      {"apps", "v1", "statefulsets"},
      {"apps", "v1", "daemonsets"},
      {"apps", "v1", "controllerrevisions"},
      {"batch", "v1", "jobs"},
      {"batch", "v1", "cronjobs"},
      {"autoscaling", "v1", "horizontalpodautoscalers"},
      {"autoscaling", "v2", "horizontalpodautoscalers"},
      {"policy", "v1", "poddisruptionbudgets"},
      {"coordination.k8s.io", "v1", "leases"},
      {"discovery.k8s.io", "v1", "endpointslices"},
      {"events.k8s.io", "v1", "events"},
      {"networking.k8s.io", "v1", "ingresses"},
      {"networking.k8s.io", "v1", "ingressclasses"},
      {"networking.k8s.io", "v1", "networkpolicies"},
      {"rbac.authorization.k8s.io", "v1", "roles"},
      {"rbac.authorization.k8s.io", "v1", "rolebindings"},
      {"rbac.authorization.k8s.io", "v1", "clusterroles"},
      {"rbac.authorization.k8s.io", "v1", "clusterrolebindings"},
      {"storage.k8s.io", "v1", "storageclasses"},
      {"storage.k8s.io", "v1", "csidrivers"},
      {"storage.k8s.io", "v1", "csinodes"},
      {"storage.k8s.io", "v1", "volumeattachments"},
      {"storage.k8s.io", "v1", "csistoragecapacities"},
      {"scheduling.k8s.io", "v1", "priorityclasses"},
      {"node.k8s.io", "v1", "runtimeclasses"},
      {"certificates.k8s.io", "v1", "certificatesigningrequests"},
      {"authorization.k8s.io", "v1", "selfsubjectaccessreviews"},
      {"authorization.k8s.io", "v1", "subjectaccessreviews"},
      {"authorization.k8s.io", "v1", "localsubjectaccessreviews"},
      {"authorization.k8s.io", "v1", "selfsubjectrulesreviews"},
      {"authentication.k8s.io", "v1", "tokenreviews"},
      {"authentication.k8s.io", "v1", "selfsubjectreviews"},
      {"apiextensions.k8s.io", "v1", "customresourcedefinitions"},
      {"admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations"},
      {"admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations"},
      {"admissionregistration.k8s.io", "v1", "validatingadmissionpolicies"},
      {"admissionregistration.k8s.io", "v1", "validatingadmissionpolicybindings"},
  };
  for (const auto& gvr : expected) must_find(registry, gvr[0], gvr[1], gvr[2]);
  CHECK(registry.resources().size() == expected.size());
}

TEST_CASE("groups are in upstream /apis order with preferred versions first") {
  const ResourceRegistry registry = registry_builtin();
  Strings names;
  for (const auto& g : registry.groups()) names.push_back(g.name);
  CHECK(names == Strings{"", "apps", "events.k8s.io", "authentication.k8s.io",
                         "authorization.k8s.io", "autoscaling", "batch", "certificates.k8s.io",
                         "networking.k8s.io", "policy", "rbac.authorization.k8s.io",
                         "storage.k8s.io", "admissionregistration.k8s.io", "apiextensions.k8s.io",
                         "scheduling.k8s.io", "coordination.k8s.io", "node.k8s.io",
                         "discovery.k8s.io"});
  REQUIRE(registry.group("autoscaling") != nullptr);
  CHECK(registry.group("autoscaling")->versions == Strings{"v2", "v1"});
  CHECK(registry.group("autoscaling")->preferred_version() == "v2");
  CHECK(registry.group("")->versions == Strings{"v1"});
  CHECK(registry.group("flowcontrol.apiserver.k8s.io") == nullptr);
}

TEST_CASE("pods carry upstream's facts") {
  const ResourceRegistry registry = registry_builtin();
  const Resource& pods = must_find(registry, "", "v1", "pods");
  CHECK(pods.kind == "Pod");
  CHECK(pods.singular == "pod");
  CHECK(pods.namespaced);
  CHECK(pods.verbs == kAllVerbs);
  CHECK(pods.short_names == Strings{"po"});
  CHECK(pods.categories == Strings{"all"});
  CHECK(pods.storage_prefix == "/registry/pods");
  CHECK(pods.returns_deleted_object);  // upstream's ReturnDeletedObject
  CHECK_FALSE(must_find(registry, "", "v1", "configmaps").returns_deleted_object);
  // Events are read from the store, as upstream serves them from etcd.
  CHECK(pods.watch_cached);
  CHECK_FALSE(must_find(registry, "", "v1", "events").watch_cached);
  CHECK_FALSE(must_find(registry, "events.k8s.io", "v1", "events").watch_cached);
  // v1.32 serves pods/resize only behind the alpha InPlacePodVerticalScaling gate.
  CHECK(subresource_names(pods) == Strings{"attach", "binding", "ephemeralcontainers", "eviction",
                                           "exec", "log", "portforward", "proxy", "status"});
  const Subresource* eviction = pods.subresource("eviction");
  REQUIRE(eviction != nullptr);
  CHECK(eviction->response_kind == GroupVersionKind{"policy", "v1", "Eviction"});
  CHECK(eviction->verbs == VerbSet{"create"});
  CHECK(pods.subresource("log")->response_kind == GroupVersionKind{"", "v1", "Pod"});
  CHECK(pods.subresource("log")->verbs == VerbSet{"get"});
  CHECK(pods.subresource("exec")->response_kind.kind == "PodExecOptions");
  CHECK(pods.subresource("exec")->verbs == VerbSet{"create", "get"});
  CHECK(pods.subresource("portforward")->response_kind.kind == "PodPortForwardOptions");
  CHECK(pods.subresource("attach")->response_kind.kind == "PodAttachOptions");
  CHECK(pods.subresource("binding")->response_kind.kind == "Binding");
  CHECK(pods.subresource("proxy")->verbs == VerbSet{"create", "delete", "get", "patch", "update"});
  CHECK(pods.subresource("ephemeralcontainers")->verbs == kStatusVerbs);
  CHECK(pods.subresource("status")->verbs == kStatusVerbs);
  CHECK(pods.subresource("resize") == nullptr);
}

TEST_CASE("deployments, services and service accounts carry upstream's facts") {
  const ResourceRegistry registry = registry_builtin();
  const Resource& deploy = must_find(registry, "apps", "v1", "deployments");
  CHECK(deploy.kind == "Deployment");
  CHECK(deploy.short_names == Strings{"deploy"});
  CHECK(deploy.categories == Strings{"all"});
  CHECK(deploy.verbs == kAllVerbs);
  CHECK(subresource_names(deploy) == Strings{"scale", "status"});
  CHECK(deploy.subresource("scale")->response_kind ==
        GroupVersionKind{"autoscaling", "v1", "Scale"});
  CHECK(deploy.subresource("scale")->verbs == kStatusVerbs);
  CHECK(deploy.subresource("status")->response_kind ==
        GroupVersionKind{"apps", "v1", "Deployment"});
  CHECK(deploy.storage_prefix == "/registry/deployments");

  const Resource& svc = must_find(registry, "", "v1", "services");
  CHECK(svc.short_names == Strings{"svc"});
  CHECK(svc.categories == Strings{"all"});
  CHECK(subresource_names(svc) == Strings{"proxy", "status"});
  CHECK(svc.subresource("proxy")->response_kind.kind == "ServiceProxyOptions");
  CHECK(svc.storage_prefix == "/registry/services/specs");

  const Resource& sa = must_find(registry, "", "v1", "serviceaccounts");
  CHECK(sa.subresource("token")->response_kind ==
        GroupVersionKind{"authentication.k8s.io", "v1", "TokenRequest"});
  CHECK(sa.subresource("token")->verbs == VerbSet{"create"});

  const Resource& rc = must_find(registry, "", "v1", "replicationcontrollers");
  CHECK(rc.subresource("scale")->response_kind == GroupVersionKind{"autoscaling", "v1", "Scale"});
  CHECK(rc.storage_prefix == "/registry/controllers");
}

TEST_CASE("core and events.k8s.io events share storage and the short name ev") {
  const ResourceRegistry registry = registry_builtin();
  const Resource& core = must_find(registry, "", "v1", "events");
  const Resource& events = must_find(registry, "events.k8s.io", "v1", "events");
  for (const Resource* r : {&core, &events}) {
    CHECK(r->kind == "Event");
    CHECK(r->namespaced);
    CHECK(r->short_names == Strings{"ev"});
    CHECK(r->categories.empty());
    CHECK(r->verbs == kAllVerbs);
    CHECK(r->storage_prefix == "/registry/events");
  }
  // Group order makes kubectl pick the core group for "ev" and "events".
  CHECK(registry.resolve("ev") == &core);
  CHECK(registry.resolve("events") == &core);
  CHECK(registry.resolve("events.events.k8s.io") == &events);
  CHECK(registry.resolve("ev.v1.events.k8s.io") == &events);
}

TEST_CASE("horizontal pod autoscalers are served as v2 (preferred) and v1") {
  const ResourceRegistry registry = registry_builtin();
  const Resource& v2 = must_find(registry, "autoscaling", "v2", "horizontalpodautoscalers");
  const Resource& v1 = must_find(registry, "autoscaling", "v1", "horizontalpodautoscalers");
  for (const Resource* r : {&v1, &v2}) {
    CHECK(r->kind == "HorizontalPodAutoscaler");
    CHECK(r->short_names == Strings{"hpa"});
    CHECK(r->categories == Strings{"all"});
    CHECK(subresource_names(*r) == Strings{"status"});
    CHECK(r->storage_prefix == "/registry/horizontalpodautoscalers");
  }
  CHECK(v1.subresource("status")->response_kind.version == "v1");
  CHECK(v2.subresource("status")->response_kind.version == "v2");
  CHECK(registry.resolve("hpa") == &v2);
}

TEST_CASE("custom resource definitions carry upstream's facts") {
  const ResourceRegistry registry = registry_builtin();
  const Resource& crd =
      must_find(registry, "apiextensions.k8s.io", "v1", "customresourcedefinitions");
  CHECK(crd.kind == "CustomResourceDefinition");
  CHECK_FALSE(crd.namespaced);
  CHECK(crd.short_names == Strings{"crd", "crds"});
  CHECK(crd.categories == Strings{"api-extensions"});
  CHECK(subresource_names(crd) == Strings{"status"});
  CHECK(crd.storage_prefix == "/registry/apiextensions.k8s.io/customresourcedefinitions");
  CHECK(crd.storage_key("ignored", "foos.example.com") ==
        "/registry/apiextensions.k8s.io/customresourcedefinitions/foos.example.com");
}

TEST_CASE("resources with restricted verbs") {
  const ResourceRegistry registry = registry_builtin();
  const Resource& ns = must_find(registry, "", "v1", "namespaces");
  CHECK(ns.verbs == VerbSet{"create", "delete", "get", "list", "patch", "update", "watch"});
  CHECK(subresource_names(ns) == Strings{"finalize", "status"});
  CHECK(ns.subresource("finalize")->verbs == VerbSet{"update"});
  CHECK(must_find(registry, "", "v1", "componentstatuses").verbs == VerbSet{"get", "list"});
  CHECK(must_find(registry, "", "v1", "bindings").verbs == VerbSet{"create"});
  for (const char* review : {"selfsubjectaccessreviews", "subjectaccessreviews",
                             "localsubjectaccessreviews", "selfsubjectrulesreviews"}) {
    const Resource& r = must_find(registry, "authorization.k8s.io", "v1", review);
    CHECK(r.verbs == VerbSet{"create"});
    CHECK_FALSE(r.stored());
    CHECK(r.namespaced == (std::string(review) == "localsubjectaccessreviews"));
  }
  for (const char* review : {"tokenreviews", "selfsubjectreviews"}) {
    const Resource& r = must_find(registry, "authentication.k8s.io", "v1", review);
    CHECK(r.verbs == VerbSet{"create"});
    CHECK_FALSE(r.namespaced);
    CHECK_FALSE(r.stored());
  }
  const Resource& csr =
      must_find(registry, "certificates.k8s.io", "v1", "certificatesigningrequests");
  CHECK(subresource_names(csr) == Strings{"approval", "status"});
}

TEST_CASE("short names resolve as kubectl resolves them") {
  const ResourceRegistry registry = registry_builtin();
  const std::vector<Strings> cases = {
      {"po", "", "pods"},
      {"deploy", "apps", "deployments"},
      {"svc", "", "services"},
      {"ns", "", "namespaces"},
      {"cm", "", "configmaps"},
      {"no", "", "nodes"},
      {"sa", "", "serviceaccounts"},
      {"ds", "apps", "daemonsets"},
      {"rs", "apps", "replicasets"},
      {"sts", "apps", "statefulsets"},
      {"hpa", "autoscaling", "horizontalpodautoscalers"},
      {"pdb", "policy", "poddisruptionbudgets"},
      {"pv", "", "persistentvolumes"},
      {"pvc", "", "persistentvolumeclaims"},
      {"ing", "networking.k8s.io", "ingresses"},
      {"netpol", "networking.k8s.io", "networkpolicies"},
      {"cj", "batch", "cronjobs"},
      {"crd", "apiextensions.k8s.io", "customresourcedefinitions"},
      {"crds", "apiextensions.k8s.io", "customresourcedefinitions"},
      {"pc", "scheduling.k8s.io", "priorityclasses"},
      {"sc", "storage.k8s.io", "storageclasses"},
      {"ep", "", "endpoints"},
      {"ev", "", "events"},
      {"csr", "certificates.k8s.io", "certificatesigningrequests"},
      {"limits", "", "limitranges"},
      {"quota", "", "resourcequotas"},
      {"rc", "", "replicationcontrollers"},
      {"cs", "", "componentstatuses"},
      // plural, singular, kind and qualified names
      {"pod", "", "pods"},
      {"Deployment", "apps", "deployments"},
      {"deployments.apps", "apps", "deployments"},
      {"deploy.v1.apps", "apps", "deployments"},
      {"leases", "coordination.k8s.io", "leases"},
  };
  for (const auto& c : cases) {
    INFO(c[0]);
    const Resource* r = registry.resolve(c[0]);
    REQUIRE(r != nullptr);
    CHECK(r->group == c[1]);
    CHECK(r->plural == c[2]);
  }
  CHECK(registry.resolve("nosuchthing") == nullptr);
  CHECK(registry.resolve("pods.apps") == nullptr);
}

TEST_CASE("category all holds upstream's workload kinds, preferred versions only") {
  const ResourceRegistry registry = registry_builtin();
  Strings all;
  for (const Resource* r : registry.in_category("all")) {
    all.push_back(r->plural + "." + r->group + "/" + r->version);
  }
  CHECK(all == Strings{"pods./v1", "replicationcontrollers./v1", "services./v1",
                       "daemonsets.apps/v1", "deployments.apps/v1", "replicasets.apps/v1",
                       "statefulsets.apps/v1", "horizontalpodautoscalers.autoscaling/v2",
                       "cronjobs.batch/v1", "jobs.batch/v1"});
  CHECK(registry.in_category("api-extensions").size() == 5);
  CHECK(registry.in_category("nope").empty());
}

TEST_CASE("storage prefixes follow upstream's etcd layout") {
  const ResourceRegistry registry = registry_builtin();
  // From upstream's test/integration/etcd/data.go (ExpectedEtcdPath).
  const std::vector<Strings> expected = {
      {"", "nodes", "/registry/minions"},
      {"", "endpoints", "/registry/services/endpoints"},
      {"", "services", "/registry/services/specs"},
      {"", "replicationcontrollers", "/registry/controllers"},
      {"", "configmaps", "/registry/configmaps"},
      {"", "namespaces", "/registry/namespaces"},
      {"networking.k8s.io", "ingresses", "/registry/ingress"},
      {"networking.k8s.io", "ingressclasses", "/registry/ingressclasses"},
      {"discovery.k8s.io", "endpointslices", "/registry/endpointslices"},
      {"coordination.k8s.io", "leases", "/registry/leases"},
      {"rbac.authorization.k8s.io", "clusterrolebindings", "/registry/clusterrolebindings"},
      {"admissionregistration.k8s.io", "validatingadmissionpolicies",
       "/registry/validatingadmissionpolicies"},
      {"storage.k8s.io", "csistoragecapacities", "/registry/csistoragecapacities"},
  };
  for (const auto& e : expected) {
    const ApiGroup* group = registry.group(e[0]);
    REQUIRE(group != nullptr);
    CHECK(must_find(registry, e[0], group->preferred_version(), e[1]).storage_prefix == e[2]);
  }
  const Resource& pods = must_find(registry, "", "v1", "pods");
  CHECK(pods.storage_key("default", "web") == "/registry/pods/default/web");
  CHECK(must_find(registry, "", "v1", "nodes").storage_key("x", "node1") ==
        "/registry/minions/node1");
  CHECK_FALSE(must_find(registry, "", "v1", "componentstatuses").stored());
  CHECK(custom_resource_storage_prefix("cr.bar.com", "foos") == "/registry/cr.bar.com/foos");
}

TEST_CASE("lookups by plural, subresource path and kind") {
  const ResourceRegistry registry = registry_builtin();
  const Resource* pods = registry.find("", "v1", "pods");
  REQUIRE(pods != nullptr);
  CHECK(registry.find("", "v1", "pods/log") == pods);
  CHECK(registry.find("", "v1", "pods/nosuch") == nullptr);
  CHECK(registry.find("", "v1", "pod") == nullptr);
  CHECK(registry.find("apps", "v1", "pods") == nullptr);
  CHECK(registry.find("apps", "v1beta1", "deployments") == nullptr);
  CHECK(registry.find_kind("", "v1", "Pod") == pods);
  CHECK(registry.find_kind("apps", "v1", "Deployment") ==
        registry.find("apps", "v1", "deployments"));
  CHECK(registry.find_kind("", "v1", "Deployment") == nullptr);
  Strings apps;
  for (const Resource* r : registry.resources_of("apps", "v1")) apps.push_back(r->plural);
  CHECK(apps ==
        Strings{"controllerrevisions", "daemonsets", "deployments", "replicasets", "statefulsets"});
  CHECK(registry.resources_of("apps", "v2").empty());
}

TEST_CASE("with() adds CRDs in a new snapshot; without() removes them") {
  const ResourceRegistry base = registry_builtin();
  auto added = base.with({custom_resource("widgets.example.com", "v1", "widgets", "Widget"),
                          custom_resource("a.example.com", "v1alpha1", "apples", "Apple"),
                          custom_resource("widgets.example.com", "v2", "widgets", "Widget"),
                          custom_resource("widgets.example.com", "v1beta1", "widgets", "Widget")});
  REQUIRE(added.is_ok());
  const ResourceRegistry& crds = added.value();
  const auto& groups = crds.groups();
  REQUIRE(groups.size() == base.groups().size() + 2);
  CHECK(groups[groups.size() - 2].name == "a.example.com");
  CHECK(groups.back().name == "widgets.example.com");
  CHECK(groups.back().versions == Strings{"v2", "v1", "v1beta1"});
  const Resource* widgets = crds.find("widgets.example.com", "v1", "widgets");
  REQUIRE(widgets != nullptr);
  CHECK(widgets->storage_key("ns1", "w") == "/registry/widgets.example.com/widgets/ns1/w");
  CHECK(crds.resolve("widgets")->version == "v2");
  // The snapshot it came from is unchanged.
  CHECK(base.find("widgets.example.com", "v1", "widgets") == nullptr);

  // A later group still sorts by name among the CRD groups, after the built-in ones.
  auto more = crds.with({custom_resource("b.example.com", "v1", "bees", "Bee")});
  REQUIRE(more.is_ok());
  CHECK(more->groups()[base.groups().size() + 1].name == "b.example.com");

  auto dup = crds.with({custom_resource("widgets.example.com", "v1", "widgets", "Widget")});
  CHECK(dup.status().code() == Code::kAlreadyExists);
  auto clash = base.with({custom_resource("apps", "v1", "deployments", "Deployment")});
  CHECK(clash.status().code() == Code::kAlreadyExists);

  auto removed = crds.without("widgets.example.com", "widgets");
  REQUIRE(removed.is_ok());
  CHECK(removed->group("widgets.example.com") == nullptr);
  CHECK(removed->find("a.example.com", "v1alpha1", "apples") != nullptr);
  CHECK(removed->resources().size() == base.resources().size() + 1);
  CHECK(crds.without("nope.example.com", "nopes").status().code() == Code::kNotFound);

  // Removing a resource from every version of its group drops the emptied group.
  auto no_hpa = base.without("autoscaling", "horizontalpodautoscalers");
  REQUIRE(no_hpa.is_ok());
  CHECK(no_hpa->group("autoscaling") == nullptr);
  CHECK(no_hpa->group("batch") != nullptr);
}

TEST_CASE("version priority is Kubernetes' kube-aware order") {
  Strings versions = {"foo10",     "v1", "v11alpha2", "v3beta1",  "v10beta3",
                      "v12alpha1", "v2", "foo1",      "v11beta2", "v10"};
  std::sort(versions.begin(), versions.end(),
            [](const std::string& a, const std::string& b) { return version_priority_less(a, b); });
  // The example from upstream's CRD versioning documentation.
  CHECK(versions == Strings{"v10", "v2", "v1", "v11beta2", "v10beta3", "v3beta1", "v12alpha1",
                            "v11alpha2", "foo1", "foo10"});
  CHECK_FALSE(version_priority_less("v1", "v1"));
  CHECK(version_priority_less("v1", "v1beta"));  // "v1beta" is not a Kubernetes version
}

TEST_CASE("bad registry data is reported as kInvalid, never thrown") {
  const auto invalid_with = [](const std::string& yaml, const std::string& needle) {
    auto result = ResourceRegistry::from_yaml(yaml);
    INFO(yaml);
    REQUIRE_FALSE(result.is_ok());
    CHECK(result.status().code() == Code::kInvalid);
    CHECK_THAT(result.status().message(), Catch::Contains(needle));
  };
  const std::string head = "groups:\n- group: g.io\n  versions:\n  - version: v1\n    resources:\n";
  invalid_with("groups: [ {", "resources.yaml");
  invalid_with("groupz: []", "unknown field \"groupz\"");
  invalid_with(head + "    - {plural: as, kind: A, namespaced: true, shortname: [a]}",
               "unknown field \"shortname\"");
  invalid_with(head + "    - {plural: as, kind: A}", "missing \"namespaced\"");
  invalid_with(head + "    - {plural: as, kind: A, namespaced: maybe}", "resources.yaml");
  invalid_with(head + "    - {plural: as, kind: A, namespaced: true, verbs: [fly]}",
               "unknown verb \"fly\"");
  invalid_with(head +
                   "    - {plural: as, kind: A, namespaced: true}\n"
                   "    - {plural: as, kind: B, namespaced: true}",
               "listed twice");
  invalid_with(head +
                   "    - {plural: as, kind: A, namespaced: true}\n"
                   "    - {plural: bs, kind: A, namespaced: true}",
               "kind A");
  invalid_with(head +
                   "    - {plural: as, kind: A, namespaced: true,\n"
                   "       subresources: [{name: scale, group: autoscaling, kind: Scale}]}",
               "go together");
  invalid_with(head + "    []\n  - version: v2\n    resources: []", "has no resources");

  CHECK(ResourceRegistry::create({{"g.io", {"v1"}}, {"g.io", {"v2"}}}, {}).status().code() ==
        Code::kInvalid);
  CHECK(ResourceRegistry::create({{"g.io", {"v1", "v1"}}}, {}).status().code() == Code::kInvalid);
  CHECK(ResourceRegistry::create({{"g.io", {}}}, {}).status().code() == Code::kInvalid);

  auto ok = ResourceRegistry::from_yaml(head + "    - {plural: as, kind: A, namespaced: true}");
  REQUIRE(ok.is_ok());
  const Resource* a = ok->find("g.io", "v1", "as");
  REQUIRE(a != nullptr);
  CHECK(a->singular == "a");
  CHECK(a->verbs == kAllVerbs);
  CHECK(a->storage_prefix == "/registry/as");
}

}  // namespace
}  // namespace k3c::api
