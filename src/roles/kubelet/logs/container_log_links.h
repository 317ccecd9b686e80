// The legacy log symlinks that log shippers (fluent-bit, promtail, ...) read, as upstream's
// kubelet keeps them: <dir>/<pod>_<namespace>_<container>-<container id>.log -> the
// instance's log file, where <dir> is the "containers" sibling of the pod logs root
// (/var/log/containers next to /var/log/pods). A link lives as long as its container: it is
// made once the instance's log file exists and removed when the runtime no longer lists the
// container. Only links this kubelet made (or remade for the containers it adopted at start)
// are ever removed.
//
// Thread-safety: sync() from one thread (the pod manager's relist loop).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "runtime/runtime_service.h"

namespace k3c::kubelet {

class ContainerLogLinks {
 public:
  explicit ContainerLogLinks(std::string pod_logs_root);

  // With every container the runtime lists: links the new ones whose log file (below the pod
  // logs root) exists, unlinks the ones gone. Failures are logged, never fatal.
  void sync(const std::vector<runtime::ContainerStatus>& containers);

  const std::string& dir() const { return dir_; }

 private:
  const std::string root_;  // the pod logs root, with a trailing '/'
  const std::string dir_;
  std::map<std::string, std::string> links_;  // container id -> link path
};

}  // namespace k3c::kubelet
