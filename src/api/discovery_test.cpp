// Tests for the discovery documents: shapes per kubectl-wire.md §4 and upstream's v1.32
// documents, Accept negotiation with the headers kubectl sends, /version, and the
// serialized DiscoveryDocuments.
#include "api/discovery.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace k3c::api {
namespace {

using nlohmann::json;
using Strings = std::vector<std::string>;

ResourceRegistry discovery_builtin() {
  auto registry = ResourceRegistry::builtin();
  REQUIRE(registry.is_ok());
  return std::move(registry).value();
}

// The entry whose `key` equals `value` in the array `list`.
const json& entry(const json& list, const std::string& key, const std::string& value) {
  for (const json& e : list) {
    if (e.value(key, "") == value) return e;
  }
  FAIL("no entry with " << key << " = " << value);
  return list;  // not reached
}

Strings discovery_names(const json& list, const std::string& key) {
  Strings out;
  for (const json& e : list) out.push_back(e.value(key, ""));
  return out;
}

VersionInfo test_version() {
  VersionInfo info;
  info.git_version = "v1.32.0+k3c0.1.0";
  info.git_commit = "0123456789ab";
  info.build_date = "2026-11-29T12:00:00Z";
  info.compiler = "gcc 12.2.0";
  return info;
}

TEST_CASE("aggregated /apis lists the named groups in order") {
  const json doc =
      aggregated_discovery(discovery_builtin(), DiscoveryRoot::kApis, AggregatedVersion::kV2);
  CHECK(doc["kind"] == "APIGroupDiscoveryList");
  CHECK(doc["apiVersion"] == "apidiscovery.k8s.io/v2");
  CHECK(doc["metadata"] == json::object());
  const json& items = doc["items"];
  REQUIRE(items.size() == 17);
  CHECK(items[0]["metadata"]["name"] == "apps");
  CHECK(items[1]["metadata"]["name"] == "events.k8s.io");
  CHECK(items.back()["metadata"]["name"] == "discovery.k8s.io");
  for (const json& group : items) {
    CHECK(group["metadata"].contains("creationTimestamp"));
    for (const json& version : group["versions"]) {
      CHECK(version["freshness"] == "Current");
      // kubectl drops a resource without responseKind and fails on such a subresource.
      for (const json& r : version["resources"]) {
        CHECK_FALSE(r["responseKind"]["kind"].get<std::string>().empty());
        CHECK((r["scope"] == "Namespaced" || r["scope"] == "Cluster"));
        for (const json& sub : r.value("subresources", json::array())) {
          CHECK_FALSE(sub["responseKind"]["kind"].get<std::string>().empty());
        }
      }
    }
  }
  const json& autoscaling = items[4];
  REQUIRE(autoscaling["metadata"]["name"] == "autoscaling");
  CHECK(discovery_names(autoscaling["versions"], "version") == Strings{"v2", "v1"});
}

TEST_CASE("aggregated deployments entry matches upstream's") {
  const json doc =
      aggregated_discovery(discovery_builtin(), DiscoveryRoot::kApis, AggregatedVersion::kV2);
  const json& apps = doc["items"][0];
  REQUIRE(apps["versions"].size() == 1);
  const json& v1 = apps["versions"][0];
  CHECK(v1["version"] == "v1");
  CHECK(discovery_names(v1["resources"], "resource") ==
        Strings{"controllerrevisions", "daemonsets", "deployments", "replicasets", "statefulsets"});
  // As a v1.32 kube-apiserver serves it: group and version of a responseKind are empty
  // for the resource's own group-version.
  const json expected = json::parse(R"({
    "resource": "deployments",
    "responseKind": {"group": "", "version": "", "kind": "Deployment"},
    "scope": "Namespaced",
    "singularResource": "deployment",
    "shortNames": ["deploy"],
    "categories": ["all"],
    "verbs": ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
    "subresources": [
      {"subresource": "scale", "responseKind": {"group": "autoscaling", "version": "v1", "kind": "Scale"},
       "verbs": ["get", "patch", "update"]},
      {"subresource": "status", "responseKind": {"group": "", "version": "", "kind": "Deployment"},
       "verbs": ["get", "patch", "update"]}]})");
  CHECK(entry(v1["resources"], "resource", "deployments") == expected);
  const json& revisions = entry(v1["resources"], "resource", "controllerrevisions");
  CHECK_FALSE(revisions.contains("shortNames"));
  CHECK_FALSE(revisions.contains("categories"));
  CHECK_FALSE(revisions.contains("subresources"));
}

TEST_CASE("aggregated /api holds the core group only") {
  const ResourceRegistry registry = discovery_builtin();
  for (const auto version : {AggregatedVersion::kV2, AggregatedVersion::kV2Beta1}) {
    const json doc = aggregated_discovery(registry, DiscoveryRoot::kApi, version);
    CHECK(doc["apiVersion"] == (version == AggregatedVersion::kV2 ? "apidiscovery.k8s.io/v2"
                                                                  : "apidiscovery.k8s.io/v2beta1"));
    REQUIRE(doc["items"].size() == 1);
    const json& core = doc["items"][0];
    CHECK_FALSE(core["metadata"].contains("name"));  // "" is omitted, as Go does
    REQUIRE(core["versions"].size() == 1);
    const json& resources = core["versions"][0]["resources"];
    const Strings resource_names = discovery_names(resources, "resource");
    CHECK(resource_names.front() == "bindings");
    CHECK(std::is_sorted(resource_names.begin(), resource_names.end()));
    const json& pods = entry(resources, "resource", "pods");
    CHECK(discovery_names(pods["subresources"], "subresource") ==
          Strings{"attach", "binding", "ephemeralcontainers", "eviction", "exec", "log",
                  "portforward", "proxy", "status"});
    CHECK(entry(pods["subresources"], "subresource", "eviction")["responseKind"] ==
          json{{"group", "policy"}, {"version", "v1"}, {"kind", "Eviction"}});
    CHECK(entry(pods["subresources"], "subresource", "exec")["responseKind"] ==
          json{{"group", ""}, {"version", ""}, {"kind", "PodExecOptions"}});
    CHECK(entry(resources, "resource", "nodes")["scope"] == "Cluster");
    CHECK(entry(resources, "resource", "nodes")["shortNames"] == json{"no"});
  }
}

TEST_CASE("legacy /api/v1 lists subresources as upstream does") {
  const auto doc = legacy_resource_list(discovery_builtin(), "", "v1");
  REQUIRE(doc.has_value());
  CHECK((*doc)["kind"] == "APIResourceList");
  CHECK((*doc)["groupVersion"] == "v1");
  CHECK_FALSE(doc->contains("apiVersion"));
  const json& resources = (*doc)["resources"];
  const Strings all = discovery_names(resources, "name");
  CHECK(std::is_sorted(all.begin(), all.end()));
  CHECK(entry(resources, "name", "pods/log") == json{{"name", "pods/log"},
                                                     {"singularName", ""},
                                                     {"namespaced", true},
                                                     {"kind", "Pod"},
                                                     {"verbs", {"get"}}});
  CHECK(entry(resources, "name", "serviceaccounts/token") ==
        json{{"name", "serviceaccounts/token"},
             {"singularName", ""},
             {"namespaced", true},
             {"group", "authentication.k8s.io"},
             {"version", "v1"},
             {"kind", "TokenRequest"},
             {"verbs", {"create"}}});
  const json& eviction = entry(resources, "name", "pods/eviction");
  CHECK(eviction["group"] == "policy");
  CHECK(eviction["version"] == "v1");
  CHECK(eviction["kind"] == "Eviction");
  CHECK(entry(resources, "name", "pods/binding")["kind"] == "Binding");
  CHECK_FALSE(entry(resources, "name", "pods/binding").contains("group"));
  CHECK(entry(resources, "name", "nodes/proxy")["namespaced"] == false);
  const json& pods = entry(resources, "name", "pods");
  CHECK(pods["singularName"] == "pod");
  CHECK(pods["shortNames"] == json{"po"});
  CHECK(pods["categories"] == json{"all"});
  // "pods", its subresources, then "podtemplates": name order, as upstream serves it.
  const auto pods_at = std::find(all.begin(), all.end(), "pods") - all.begin();
  CHECK(all[static_cast<size_t>(pods_at) + 1] == "pods/attach");
  CHECK(all[static_cast<size_t>(pods_at) + 10] == "podtemplates");
}

TEST_CASE("legacy /apis/apps/v1 names the Scale kind of deployments/scale") {
  const auto doc = legacy_resource_list(discovery_builtin(), "apps", "v1");
  REQUIRE(doc.has_value());
  CHECK((*doc)["apiVersion"] == "v1");
  CHECK((*doc)["groupVersion"] == "apps/v1");
  const json& scale = entry((*doc)["resources"], "name", "deployments/scale");
  CHECK(scale["group"] == "autoscaling");
  CHECK(scale["version"] == "v1");
  CHECK(scale["kind"] == "Scale");
  CHECK(scale["verbs"] == json{"get", "patch", "update"});
  CHECK(entry((*doc)["resources"], "name", "deployments/status")["kind"] == "Deployment");
  CHECK_FALSE(legacy_resource_list(discovery_builtin(), "apps", "v1beta1").has_value());
  CHECK_FALSE(legacy_resource_list(discovery_builtin(), "metrics.k8s.io", "v1beta1").has_value());
}

TEST_CASE("legacy /api, /apis and /apis/<group>") {
  const ResourceRegistry registry = discovery_builtin();
  CHECK(legacy_api_versions(registry, "10.0.0.1:6443") == json::parse(R"({
    "kind": "APIVersions", "versions": ["v1"],
    "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "10.0.0.1:6443"}]})"));

  const json list = legacy_group_list(registry);
  CHECK(list["kind"] == "APIGroupList");
  CHECK(list["apiVersion"] == "v1");
  CHECK(list["groups"].size() == 17);
  CHECK(list["groups"][0]["name"] == "apps");
  CHECK(entry(list["groups"], "name", "autoscaling") == json::parse(R"({
    "name": "autoscaling",
    "versions": [{"groupVersion": "autoscaling/v2", "version": "v2"},
                 {"groupVersion": "autoscaling/v1", "version": "v1"}],
    "preferredVersion": {"groupVersion": "autoscaling/v2", "version": "v2"}})"));

  const auto apps = legacy_group(registry, "apps");
  REQUIRE(apps.has_value());
  CHECK((*apps)["kind"] == "APIGroup");
  CHECK((*apps)["preferredVersion"]["groupVersion"] == "apps/v1");
  CHECK_FALSE(legacy_group(registry, "").has_value());
  CHECK_FALSE(legacy_group(registry, "nope.io").has_value());
}

TEST_CASE("/version reports the Kubernetes level and k3c's build") {
  const auto doc = version_document(test_version());
  REQUIRE(doc.is_ok());
  CHECK(*doc == json::parse(R"json({
    "major": "1", "minor": "32", "gitVersion": "v1.32.0+k3c0.1.0", "gitCommit": "0123456789ab",
    "gitTreeState": "clean", "buildDate": "2026-11-29T12:00:00Z", "goVersion": "n/a (C++)",
    "compiler": "gcc 12.2.0", "platform": "linux/amd64"})json"));
  for (const char* bad : {"", "1.32.0", "v1", "v1.x.0", "v.32.0"}) {
    VersionInfo info = test_version();
    info.git_version = bad;
    CHECK(version_document(info).status().code() == Code::kInvalid);
  }
}

TEST_CASE("Accept negotiation picks what kubectl asks for") {
  // Sent by kubectl 1.32 and 1.33 for /api and /apis (shared/research/kubectl-requests).
  CHECK(negotiate_aggregated_discovery(
            "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
            "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,"
            "application/json") == AggregatedVersion::kV2);
  // client-go 0.26-0.29 offer v2beta1 only.
  CHECK(negotiate_aggregated_discovery(
            "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,"
            "application/json") == AggregatedVersion::kV2Beta1);
  // Sent for legacy documents, /version, and by clients that know no aggregation.
  CHECK_FALSE(negotiate_aggregated_discovery("application/json, */*").has_value());
  CHECK_FALSE(negotiate_aggregated_discovery("").has_value());
  CHECK_FALSE(negotiate_aggregated_discovery(
                  "application/json, application/json;g=apidiscovery.k8s.io;v=v2;"
                  "as=APIGroupDiscoveryList")
                  .has_value());
  // Protobuf is not served: skip to the next range.
  CHECK(negotiate_aggregated_discovery(
            "application/"
            "vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList, "
            "application/json; g=apidiscovery.k8s.io; v=v2beta1; as=APIGroupDiscoveryList") ==
        AggregatedVersion::kV2Beta1);
  CHECK_FALSE(negotiate_aggregated_discovery(
                  "application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList")
                  .has_value());
  CHECK(content_type_of(AggregatedVersion::kV2) == kAggregatedV2ContentType);
  CHECK(content_type_of(AggregatedVersion::kV2Beta1) ==
        "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList");
}

TEST_CASE("DiscoveryDocuments serializes every document once") {
  const ResourceRegistry registry = discovery_builtin();
  auto built = DiscoveryDocuments::build(registry, {"127.0.0.1:6443", test_version()});
  REQUIRE(built.is_ok());
  const DiscoveryDocuments& docs = built.value();
  using enum AggregatedVersion;
  using enum DiscoveryRoot;
  CHECK(json::parse(docs.aggregated(kApi, kV2)) == aggregated_discovery(registry, kApi, kV2));
  CHECK(json::parse(docs.aggregated(kApis, kV2)) == aggregated_discovery(registry, kApis, kV2));
  CHECK(json::parse(docs.aggregated(kApis, kV2Beta1))["apiVersion"] ==
        "apidiscovery.k8s.io/v2beta1");
  CHECK(json::parse(docs.aggregated(kApi, kV2Beta1))["items"].size() == 1);
  CHECK(json::parse(docs.api_versions())["serverAddressByClientCIDRs"][0]["serverAddress"] ==
        "127.0.0.1:6443");
  CHECK(json::parse(docs.group_list()) == legacy_group_list(registry));
  CHECK(json::parse(docs.version())["gitVersion"] == "v1.32.0+k3c0.1.0");
  // One legacy resource list per group-version, one APIGroup per named group.
  for (const ApiGroup& group : registry.groups()) {
    for (const std::string& v : group.versions) {
      const std::string* list = docs.resource_list(group.name, v);
      REQUIRE(list != nullptr);
      CHECK(json::parse(*list) == *legacy_resource_list(registry, group.name, v));
    }
    CHECK((docs.group(group.name) != nullptr) == !group.name.empty());
  }
  CHECK(docs.resource_list("apps", "v2") == nullptr);
  CHECK(docs.group("nope.io") == nullptr);

  VersionInfo bad = test_version();
  bad.git_version = "latest";
  CHECK(DiscoveryDocuments::build(registry, {"x:1", bad}).status().code() == Code::kInvalid);
}

TEST_CASE("CRD groups appear after the built-in groups") {
  Resource widgets;
  widgets.group = "example.com";
  widgets.version = "v1";
  widgets.kind = "Widget";
  widgets.plural = "widgets";
  widgets.singular = "widget";
  widgets.namespaced = true;
  widgets.verbs = {"get", "list", "watch", "create"};
  widgets.subresources = {{"status", {"example.com", "v1", "Widget"}, {"get", "patch", "update"}}};
  auto registry = discovery_builtin().with({widgets});
  REQUIRE(registry.is_ok());
  const json doc = aggregated_discovery(*registry, DiscoveryRoot::kApis, AggregatedVersion::kV2);
  const json& last = doc["items"].back();
  CHECK(last["metadata"]["name"] == "example.com");
  const json& entry = last["versions"][0]["resources"][0];
  CHECK(entry["verbs"] == json{"create", "get", "list", "watch"});
  CHECK(entry["subresources"][0]["responseKind"] ==
        json{{"group", ""}, {"version", ""}, {"kind", "Widget"}});
}

}  // namespace
}  // namespace k3c::api
