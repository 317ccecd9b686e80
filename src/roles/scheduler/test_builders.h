// Builders of v1.Node and v1.Pod JSON for the scheduler's unit tests and benchmark: the tests
// go through the same parsers as the scheduler role will.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "roles/scheduler/model.h"

namespace k3c::scheduler::testing {

using json = nlohmann::json;

class NodeBuilder {
 public:
  explicit NodeBuilder(const std::string& name) {
    j_ = {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", {{"kubernetes.io/hostname", name}}}}},
          {"spec", json::object()},
          {"status",
           {{"allocatable", {{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}}},
            {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}};
  }
  NodeBuilder& allocatable(const std::string& resource, const std::string& amount) {
    j_["status"]["allocatable"][resource] = amount;
    return *this;
  }
  NodeBuilder& label(const std::string& k, const std::string& v) {
    j_["metadata"]["labels"][k] = v;
    return *this;
  }
  NodeBuilder& taint(const std::string& k, const std::string& v, const std::string& effect) {
    json t = {{"key", k}, {"effect", effect}};
    if (!v.empty()) t["value"] = v;
    j_["spec"]["taints"].push_back(t);
    return *this;
  }
  NodeBuilder& unschedulable() {
    j_["spec"]["unschedulable"] = true;
    return *this;
  }
  NodeBuilder& image(const std::string& name, int64_t size) {
    j_["status"]["images"].push_back({{"names", {name}}, {"sizeBytes", size}});
    return *this;
  }
  const json& json_() const { return j_; }
  NodePtr build() const { return *node_from_json(j_); }

 private:
  json j_;
};

class PodBuilder {
 public:
  explicit PodBuilder(const std::string& name, const std::string& ns = "default") {
    j_ = {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", ns}, {"uid", ns + "-" + name}}},
          {"spec", {{"containers", {{{"name", "c"}, {"image", "app:1"}}}}}}};
  }
  PodBuilder& request(const std::string& resource, const std::string& amount) {
    j_["spec"]["containers"][0]["resources"]["requests"][resource] = amount;
    return *this;
  }
  PodBuilder& label(const std::string& k, const std::string& v) {
    j_["metadata"]["labels"][k] = v;
    return *this;
  }
  PodBuilder& node(const std::string& name) {
    j_["spec"]["nodeName"] = name;
    return *this;
  }
  PodBuilder& priority(int32_t p) {
    j_["spec"]["priority"] = p;
    return *this;
  }
  PodBuilder& start_time(const std::string& t) {
    j_["status"]["startTime"] = t;
    return *this;
  }
  PodBuilder& toleration(const json& t) {
    j_["spec"]["tolerations"].push_back(t);
    return *this;
  }
  PodBuilder& host_port(int port) {
    j_["spec"]["containers"][0]["ports"].push_back({{"containerPort", port}, {"hostPort", port}});
    return *this;
  }
  PodBuilder& image(const std::string& image) {
    j_["spec"]["containers"][0]["image"] = image;
    return *this;
  }
  // Any part of spec, as JSON (affinity, topologySpreadConstraints, nodeSelector...).
  PodBuilder& spec(const std::string& field, const json& value) {
    j_["spec"][field] = value;
    return *this;
  }
  json& raw() { return j_; }
  PodPtr build() const { return *pod_from_json(j_); }

 private:
  json j_;
};

}  // namespace k3c::scheduler::testing
