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
// Defaults and validation are the API server's: the source asks `defaulter` (a dry-run
// create of the mirror pod in production) and takes the defaulted spec; a manifest that
// does not decode or validate is skipped with a warning, as upstream logs it and goes on.
//
// Thread-safety: every method may be called from any thread (one mutex).
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/status.h"

namespace k3c::kubelet {

inline constexpr const char* kConfigHashAnnotation = "kubernetes.io/config.hash";
inline constexpr const char* kConfigMirrorAnnotation = "kubernetes.io/config.mirror";
inline constexpr const char* kConfigSourceAnnotation = "kubernetes.io/config.source";
inline constexpr const char* kConfigSeenAnnotation = "kubernetes.io/config.seen";

// The pod as the API server would default it (its spec is taken), or why it is invalid.
using PodDefaulter = std::function<Result<nlohmann::json>(const nlohmann::json& pod)>;

class StaticPodSource {
 public:
  StaticPodSource(std::string directory, std::string node_name, const Clock& clock,
                  PodDefaulter defaulter);

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
    std::optional<nlohmann::json> pod;           // from the file as it is now
    std::vector<nlohmann::json> terminating;     // older versions still stopping
    std::string file;
    std::string fingerprint;  // the file's content hash: unchanged files are not decoded again
  };
  // The pod of one manifest; an error when it cannot be used.
  Result<nlohmann::json> load(const std::string& path, const std::string& content) const;
  nlohmann::json terminating_copy(const nlohmann::json& pod) const;

  const std::string directory_;
  const std::string node_name_;
  const Clock& clock_;
  const PodDefaulter defaulter_;
  mutable std::mutex mu_;
  std::map<std::string, Entry> entries_;  // by key; guarded by mu_
};

}  // namespace k3c::kubelet
