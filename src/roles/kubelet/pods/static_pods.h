// Static pods: pods the kubelet runs from manifest files in a directory (k3s and upstream's
// staticPodPath; k3c's default is <data-dir>/agent/pod-manifests), each reflected into the
// API as a mirror pod. As upstream's file source (pkg/kubelet/config/file.go, common.go):
//   - every regular file not starting with "." holds one Pod (YAML or JSON, apiVersion v1);
//   - the pod is named <name>-<node>, put in "default" when it names no namespace, bound to
//     this node, given a toleration of every NoExecute taint, and a uid that is a hash of
//     the file's content, the node and the file's path (so a restart finds the same pod
//     and its containers again);
//   - annotations kubernetes.io/config.hash (the uid), kubernetes.io/config.source "file"
//     and kubernetes.io/config.seen;
//   - a changed file is a new pod (new uid): the old one terminates gracefully first; a
//     removed file terminates its pod gracefully (deletionTimestamp and the pod's grace
//     period, as if deleted through the API).
// Defaults and validation are the kubelet's own, as upstream's file source applies the v1
// scheme's defaulters and ValidatePodCreate without any API server: the project's schemas
// (src/api/schemas) through api::apply_defaults and api::validate, loaded on the first
// manifest. A manifest that does not decode or validate is skipped with a warning carrying
// the field errors, as upstream logs it and goes on. What the API server adds at create
// (ServiceAccount admission, LimitRanger, priority) a static pod does not get, as upstream's.
//
// Thread-safety: every method may be called from any thread (one mutex).
#pragma once

#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/schema.h"
#include "core/clock.h"
#include "core/status.h"

namespace k3c::kubelet {

inline constexpr const char* kConfigHashAnnotation = "kubernetes.io/config.hash";
inline constexpr const char* kConfigMirrorAnnotation = "kubernetes.io/config.mirror";
inline constexpr const char* kConfigSourceAnnotation = "kubernetes.io/config.source";
inline constexpr const char* kConfigSeenAnnotation = "kubernetes.io/config.seen";

// A pod with the v1 defaults filled in (pod_defaults, container_defaults, ... and every
// field's schema default), then validated as upstream's ValidatePodCreate: kInvalid with
// upstream's "invalid pod: [<field>: <error> ...]" when it does not hold.
Result<nlohmann::json> default_and_validate_pod(nlohmann::json pod, const api::SchemaSet& schemas);

class StaticPodSource {
 public:
  StaticPodSource(std::string directory, std::string node_name, const Clock& clock);

  // Reads the directory again; the keys ("namespace/name") whose pods appeared, changed or
  // went. A missing directory holds no pods.
  std::vector<std::string> scan();

  // What a sync of `key` runs now: a pod being replaced or removed terminates first (it
  // carries deletionTimestamp), then its successor.
  std::optional<nlohmann::json> current(const std::string& key) const;
  // The pod that terminated under `key` (by uid) is done: forget it.
  void terminated(const std::string& key, const std::string& uid);
  // Every static pod's uid with its key (running and terminating ones).
  std::map<std::string, std::string> uids() const;
  // The pod the mirror of `key` should show (nullopt: no mirror should exist).
  std::optional<nlohmann::json> desired_mirror(const std::string& key) const;

 private:
  struct Entry {
    std::optional<nlohmann::json> pod;        // from the file as it is now
    std::vector<nlohmann::json> terminating;  // older versions still stopping
    std::string file;
    std::string fingerprint;  // the file's content hash: unchanged files are not decoded again
  };
  // The pod of one manifest; an error when it cannot be used.
  Result<nlohmann::json> load(const std::string& path, const std::string& content) const;
  nlohmann::json terminating_copy(const nlohmann::json& pod) const;

  const std::string directory_;
  const std::string node_name_;
  const Clock& clock_;
  mutable std::mutex mu_;
  // The built-in schemas, loaded by the first manifest that needs them (a node without
  // static pods never pays for them); guarded by mu_.
  mutable std::optional<api::SchemaSet> schemas_;
  std::map<std::string, Entry> entries_;  // by key; guarded by mu_
};

}  // namespace k3c::kubelet
