// The kubelet's settings users tune, one field per upstream kubelet flag or
// KubeletConfiguration key (the comment names it). `--kubelet-arg KEY=VALUE` sets them
// (cli/component_args.h); the defaults are here and only here.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "roles/kubelet/eviction/eviction_thresholds.h"

namespace k3c::kubelet {

struct KubeletSettings {
  // node-status-update-frequency: how often the kubelet computes the node's status and
  // writes it when it changed.
  std::chrono::milliseconds node_status_update_frequency{10'000};
  // nodeStatusReportFrequency (config file only upstream): the status is written at least
  // this often even when nothing changed. Upstream's default is 5 min.
  std::chrono::milliseconds node_status_report_frequency{300'000};
  // nodeLeaseDurationSeconds: the Lease's leaseDurationSeconds; it is renewed every quarter
  // of it (10 s for the default 40 s), as upstream.
  int node_lease_duration_seconds = 40;
  // max-pods: the node's pods capacity.
  int max_pods = 110;
  // cgroup-root: the cgroup the pods' hierarchy (kubepods/...) goes under; "/" = the top.
  std::string cgroup_root = "/";
  // pod-max-pids (podPidsLimit): the most processes a pod may have; -1 = no limit.
  int pod_max_pids = -1;
  // podLogsDir: where container logs go (<dir>/<ns>_<pod>_<uid>/<container>/<n>.log).
  std::string pod_logs_dir = "/var/log/pods";
  // root-dir: upstream's kubelet state directory. k3c keeps its own state under the data dir
  // and reads only Localhost seccomp profiles from here (<root-dir>/seccomp/<localhostProfile>),
  // where upstream's kubelet, k3s's and the security-profiles-operator put them.
  std::string root_dir = "/var/lib/kubelet";
  // port: the kubelet API over HTTPS (0 = any free port, for tests).
  int port = 10250;
  // address: the IP the kubelet API listens on.
  std::string address = "0.0.0.0";
  // pod-manifest-path (staticPodPath): the static pod manifests; "" = <data-dir>/agent/
  // pod-manifests, as k3s. file-check-frequency: how often it is read again.
  std::string pod_manifest_path;
  std::chrono::milliseconds file_check_frequency{20'000};
  // container-log-max-size / container-log-max-files: logs/log_rotation.h.
  int64_t container_log_max_size_bytes = 10 << 20;
  int container_log_max_files = 5;
  // image-gc-high-threshold / image-gc-low-threshold (percent of the image filesystem) and
  // minimum-image-ttl-duration (imageMinimumGCAge): images/image_gc.h. 100 = no collection.
  int image_gc_high_threshold_percent = 85;
  int image_gc_low_threshold_percent = 80;
  std::chrono::milliseconds image_minimum_gc_age{120'000};
  // eviction-hard, eviction-soft, eviction-soft-grace-period, eviction-minimum-reclaim,
  // eviction-pressure-transition-period, eviction-max-pod-grace-period:
  // eviction/eviction_thresholds.h.
  EvictionSettings eviction;
};

}  // namespace k3c::kubelet
