// The kubelet's volumes: sets up a pod's volumes under <root>/pods/<uid>/volumes before its
// containers start, answers a container's mounts (the pod sync's MountResolver), and tears
// them down (tmpfs unmounted, directory removed) when the pod's sandbox goes.
//
//   emptyDir       a directory; medium Memory a tmpfs (size = sizeLimit, else the node's
//                  allocatable memory)
//   hostPath       the host path itself, after the type check
//   configMap,     files through the atomic writer, rewritten on every sync (so an edited
//   secret,        object shows up in place); secrets on a tmpfs
//   downwardAPI,
//   projected      (configMap, secret, downwardAPI, serviceAccountToken by TokenRequest)
//   persistentVolumeClaim  a bound claim whose PV is hostPath or local: that path
// A failed setup records upstream's FailedMount event and fails the container's start.
//
// Thread-safety: mounts() and remove_pod() from any pod worker at once.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "client/client.h"
#include "client/event_recorder.h"
#include "roles/kubelet/pods/sync_context.h"
#include "roles/kubelet/volumes/payloads.h"

namespace k3c::kubelet::volumes {

class VolumeManager {
 public:
  // `root` is the kubelet's directory (<data-dir>/agent); `client` reads PVCs/PVs and asks
  // for tokens; `objects` reads ConfigMaps and Secrets.
  VolumeManager(std::string root, client::Client& client, ConfigSource& objects,
                client::EventRecorder& events, NodeFacts node);

  // `attempt`: the container instance's restart number; each instance gets a termination
  // message file of its own (the previous one's is kept for its lastState, older ones go).
  Result<std::vector<runtime::Mount>> mounts(const nlohmann::json& pod,
                                             const nlohmann::json& container, uint32_t attempt = 0);
  void remove_pod(const std::string& uid);
  // The pods that have a directory here (their uids), for the orphan sweep.
  std::vector<std::string> pod_uids() const;
  // Every sync of a pod whose volumes are set up: rewrites its configMap, secret,
  // downwardAPI and projected files (an edited object shows up in the running container).
  void refresh(const nlohmann::json& pod);

  MountResolver resolver() {
    return [this](const nlohmann::json& pod, const nlohmann::json& container, uint32_t attempt) {
      return mounts(pod, container, attempt);
    };
  }

 private:
  // The host path of one volume, set up (or refreshed).
  Result<std::string> set_up(const nlohmann::json& pod, const nlohmann::json& volume);
  Result<std::string> claim_path(const std::string& ns, const std::string& claim);
  Result<std::string> token(const std::string& uid, const std::string& pod, const std::string& ns,
                            const std::string& service_account, const std::string& audience,
                            int64_t expiration_seconds);

  const std::string root_;
  client::Client& client_;
  ConfigSource& objects_;
  client::EventRecorder& events_;
  const NodeFacts node_;

  struct CachedToken {
    std::string token;
    std::chrono::system_clock::time_point refresh_at;
  };
  std::mutex mu_;
  std::map<std::string, CachedToken> tokens_;  // "<uid>/<sa>/<audience>/<seconds>"
};

}  // namespace k3c::kubelet::volumes
