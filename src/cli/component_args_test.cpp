// Tests for --kube-controller-manager-arg / --kube-scheduler-arg parsing.
#include "cli/component_args.h"

#include <catch2/catch.hpp>

namespace k3c::cli {
namespace {

using namespace std::chrono_literals;

TEST_CASE("controller manager args set typed settings under upstream keys") {
  controllers::ControllerManagerSettings s;
  REQUIRE(apply_controller_manager_arg("concurrent-deployment-syncs=7", s).is_ok());
  REQUIRE(apply_controller_manager_arg("--node-monitor-grace-period=1m30s", s).is_ok());
  REQUIRE(apply_controller_manager_arg("terminated-pod-gc-threshold=0", s).is_ok());
  REQUIRE(apply_controller_manager_arg("leader-elect=false", s).is_ok());
  REQUIRE(apply_controller_manager_arg("leader-elect-lease-duration=30s", s).is_ok());
  REQUIRE(apply_controller_manager_arg("cluster-signing-duration=720h", s).is_ok());
  CHECK(s.concurrent_deployment_syncs == 7);
  CHECK(s.cluster_signing_duration == std::chrono::hours(720));
  CHECK(s.node_monitor_grace_period == 90s);
  CHECK(s.terminated_pod_gc_threshold == 0);
  CHECK_FALSE(s.leader_election.leader_elect);
  CHECK(s.leader_election.lease_duration == 30s);
  REQUIRE(apply_controller_manager_arg("leader-elect", s).is_ok());  // a bare boolean is true
  CHECK(s.leader_election.leader_elect);
}

TEST_CASE("controller manager args: bad keys and values are clear errors") {
  controllers::ControllerManagerSettings s;
  auto unknown = apply_controller_manager_arg("no-such-flag=1", s);
  CHECK(unknown.code() == Code::kInvalid);
  CHECK(unknown.message().find("unknown kube-controller-manager flag no-such-flag") == 0);
  CHECK(unknown.message().find("node-monitor-grace-period") != std::string::npos);
  CHECK(apply_controller_manager_arg("bind-address=0.0.0.0", s).message() ==
        "kube-controller-manager flag bind-address is not supported by k3c");
  CHECK(apply_controller_manager_arg("concurrent-gc-syncs=0", s).message() ==
        "kube-controller-manager flag concurrent-gc-syncs: must be at least 1");
  CHECK(apply_controller_manager_arg("concurrent-gc-syncs=x", s).message() ==
        "kube-controller-manager flag concurrent-gc-syncs: expected a whole number");
  CHECK(apply_controller_manager_arg("concurrent-gc-syncs", s).message() ==
        "kube-controller-manager flag concurrent-gc-syncs: needs a value (KEY=VALUE)");
  CHECK(!apply_controller_manager_arg("node-monitor-period=5", s).is_ok());  // no unit
  CHECK(!apply_controller_manager_arg("leader-elect=maybe", s).is_ok());
  CHECK(!apply_controller_manager_arg("leader-elect-lease-duration=1500ms", s).is_ok());
  CHECK(!apply_controller_manager_arg("=1", s).is_ok());
  CHECK(s.concurrent_gc_syncs == controllers::ControllerManagerSettings{}.concurrent_gc_syncs);
}

TEST_CASE("scheduler args") {
  scheduler::SchedulerSettings s;
  REQUIRE(apply_scheduler_arg("pod-max-in-unschedulable-pods-duration=2m", s).is_ok());
  CHECK(s.pod_max_in_unschedulable_pods_duration == 2min);
  REQUIRE(apply_scheduler_arg("leader-elect-retry-period=500ms", s).is_ok());
  CHECK(s.leader_election.retry_period == 500ms);
  CHECK(apply_scheduler_arg("concurrent-gc-syncs=3", s)
            .message()
            .find("unknown kube-scheduler flag concurrent-gc-syncs") == 0);
}

TEST_CASE("kubelet eviction args") {
  kubelet::KubeletSettings s;
  CHECK_FALSE(s.eviction.hard);  // upstream's defaults
  // The first eviction-hard replaces the defaults; later ones add to it.
  REQUIRE(apply_kubelet_arg("eviction-hard=memory.available<500Mi", s).is_ok());
  REQUIRE(apply_kubelet_arg("eviction-hard=nodefs.available<5%", s).is_ok());
  REQUIRE(s.eviction.hard);
  CHECK(s.eviction.hard->size() == 2);
  CHECK(s.eviction.hard->at(kubelet::Signal::kMemoryAvailable).quantity->to_string() == "500Mi");
  REQUIRE(apply_kubelet_arg("eviction-soft=memory.available<1Gi", s).is_ok());
  REQUIRE(apply_kubelet_arg("eviction-soft-grace-period=memory.available=1m30s", s).is_ok());
  REQUIRE(apply_kubelet_arg("eviction-minimum-reclaim=memory.available=100Mi", s).is_ok());
  REQUIRE(apply_kubelet_arg("eviction-pressure-transition-period=30s", s).is_ok());
  REQUIRE(apply_kubelet_arg("eviction-max-pod-grace-period=60", s).is_ok());
  CHECK(s.eviction.soft_grace_period.at(kubelet::Signal::kMemoryAvailable) ==
        std::chrono::seconds(90));
  CHECK(s.eviction.pressure_transition_period == std::chrono::seconds(30));
  CHECK(s.eviction.max_pod_grace_period_seconds == 60);
  CHECK(kubelet::eviction_thresholds(s.eviction)->size() == 3);
  CHECK(apply_kubelet_arg("eviction-hard=memory.free<1Mi", s).message() ==
        "kubelet flag eviction-hard: unsupported eviction signal memory.free");
  CHECK(apply_kubelet_arg("eviction-soft=nodefs.available<200%", s).message() ==
        "kubelet flag eviction-soft: eviction percentage threshold nodefs.available must be <= "
        "100%: 200%");
  CHECK(apply_kubelet_arg("eviction-soft-grace-period=memory.available", s).message() ==
        "kubelet flag eviction-soft-grace-period: expected SIGNAL=VALUE, got memory.available");
  CHECK(apply_kubelet_arg("eviction-pressure-transition-period=soon", s)
            .message()
            .find("kubelet flag eviction-pressure-transition-period: ") == 0);
}

TEST_CASE("kubelet args") {
  kubelet::KubeletSettings s;
  REQUIRE(apply_kubelet_arg("node-status-update-frequency=4s", s).is_ok());
  CHECK(s.node_status_update_frequency == 4s);
  REQUIRE(apply_kubelet_arg("--node-status-report-frequency=1m", s).is_ok());
  CHECK(s.node_status_report_frequency == 1min);
  REQUIRE(apply_kubelet_arg("max-pods=250", s).is_ok());
  CHECK(s.max_pods == 250);
  CHECK(apply_kubelet_arg("max-pods=0", s).message() ==
        "kubelet flag max-pods: must be at least 1");
  CHECK(s.pod_max_pids == -1);
  REQUIRE(apply_kubelet_arg("pod-max-pids=100", s).is_ok());
  CHECK(s.pod_max_pids == 100);
  CHECK(apply_kubelet_arg("pod-max-pids=-2", s).message() ==
        "kubelet flag pod-max-pids: must be at least -1");
  REQUIRE(apply_kubelet_arg("image-gc-high-threshold=90", s).is_ok());
  REQUIRE(apply_kubelet_arg("image-gc-low-threshold=70", s).is_ok());
  REQUIRE(apply_kubelet_arg("minimum-image-ttl-duration=10m", s).is_ok());
  CHECK(s.image_gc_high_threshold_percent == 90);
  CHECK(s.image_gc_low_threshold_percent == 70);
  CHECK(s.image_minimum_gc_age == 10min);
  CHECK(apply_kubelet_arg("image-gc-high-threshold=101", s).message() ==
        "kubelet flag image-gc-high-threshold: must be at most 100");
  CHECK(apply_kubelet_arg("image-gc-low-threshold=-1", s).message() ==
        "kubelet flag image-gc-low-threshold: must be at least 0");
  REQUIRE(apply_kubelet_arg("container-log-max-size=5Mi", s).is_ok());
  REQUIRE(apply_kubelet_arg("container-log-max-files=3", s).is_ok());
  CHECK(s.container_log_max_size_bytes == 5 << 20);
  CHECK(s.container_log_max_files == 3);
  CHECK(apply_kubelet_arg("container-log-max-size=lots", s).message() ==
        "kubelet flag container-log-max-size: expected a positive size such as 10Mi");
  CHECK(apply_kubelet_arg("container-log-max-files=1", s).message() ==
        "kubelet flag container-log-max-files: must be at least 2");
  REQUIRE(apply_kubelet_arg("port=0", s).is_ok());
  CHECK(s.port == 0);
  REQUIRE(apply_kubelet_arg("address=127.0.0.1", s).is_ok());
  CHECK(s.address == "127.0.0.1");
  CHECK(apply_kubelet_arg("port=70000", s).message() == "kubelet flag port: must be at most 65535");
  CHECK_FALSE(apply_kubelet_arg("address=not-an-ip", s).is_ok());
  CHECK(apply_kubelet_arg("kube-reserved=cpu=1", s).message() ==
        "kubelet flag kube-reserved is not supported by k3c");
  CHECK(apply_kubelet_arg("pod-infra-container-image=x", s)
            .message()
            .find("unknown kubelet flag pod-infra-container-image") == 0);
}

}  // namespace
}  // namespace k3c::cli
