#include "roles/controllers/controller_manager.h"

#include "client/in_process_client.h"
#include "client/leader_election.h"
#include "core/ids.h"
#include "core/log.h"
#include "roles/controllers/certificates/csr_signing_controller.h"
#include "roles/controllers/common/context.h"
#include "roles/controllers/common/controller.h"
#include "roles/controllers/cronjob/cronjob_controller.h"
#include "roles/controllers/daemonset/daemon_set_controller.h"
#include "roles/controllers/deployment/deployment_controller.h"
#include "roles/controllers/disruption/disruption_controller.h"
#include "roles/controllers/endpoints/endpoint_slice_controller.h"
#include "roles/controllers/endpoints/endpoint_slice_mirroring_controller.h"
#include "roles/controllers/endpoints/endpoints_controller.h"
#include "roles/controllers/garbagecollector/garbage_collector.h"
#include "roles/controllers/job/job_controller.h"
#include "roles/controllers/namespace/namespace_controller.h"
#include "roles/controllers/nodeipam/node_ipam_controller.h"
#include "roles/controllers/nodelifecycle/node_lifecycle_controller.h"
#include "roles/controllers/nodelifecycle/taint_eviction_controller.h"
#include "roles/controllers/podautoscaler/pod_autoscaler_controller.h"
#include "roles/controllers/podgc/pod_gc_controller.h"
#include "roles/controllers/replicaset/replica_set_controller.h"
#include "roles/controllers/resourcequota/resource_quota_controller.h"
#include "roles/controllers/serviceaccount/service_account_controller.h"
#include "roles/controllers/statefulset/stateful_set_controller.h"
#include "roles/controllers/ttlafterfinished/ttl_after_finished_controller.h"
#include "roles/controllers/volume/local_path_provisioner.h"
#include "roles/controllers/volume/pv_binder_controller.h"

namespace k3c::controllers {

std::string ControllerContext::now() const { return rfc3339(clock.wall_now()); }

ControllerManagerRole::ControllerManagerRole(ControllerManagerConfig config, const Clock& clock)
    : config_(std::move(config)), clock_(clock) {}

ControllerManagerRole::~ControllerManagerRole() { stop(); }

Status ControllerManagerRole::start() {
  // Until RBAC exists the controllers' identity carries system:masters (upstream binds
  // system:kube-controller-manager to the roles it needs).
  http::PeerIdentity identity{"system:kube-controller-manager",
                              {"system:masters", "system:authenticated"}};
  client_ = std::make_unique<client::InProcessClient>(config_.handler, identity);
  leadership_ = std::make_unique<client::LeadershipRun>(
      *client_, config_.settings.leader_election, "kube-controller-manager", config_.identity,
      [this] { start_controllers(); }, [this] { stop_controllers(); }, clock_);
  ready_ = true;
  return Status::ok();
}

void ControllerManagerRole::start_controllers() {
  std::lock_guard lock(mu_);
  if (!controllers_.empty()) return;
  auto logger = log::for_role("controller-manager");
  informers_ =
      std::make_unique<InformerSet>(*client_, config_.shared_objects, config_.pod_transform);
  events_ = std::make_unique<EventRecorder>(*client_, "controller-manager", clock_);
  context_ = std::unique_ptr<ControllerContext>(
      new ControllerContext{*client_, *informers_, *events_, clock_,
                            config_.root_ca_pem ? config_.root_ca_pem() : std::string()});
  struct Started {
    std::unique_ptr<Controller> controller;
    int workers;
  };
  const ControllerManagerSettings& settings = config_.settings;
  std::vector<Started> started;
  started.push_back({std::make_unique<ServiceAccountController>(*context_),
                     settings.concurrent_serviceaccount_syncs});
  started.push_back(
      {std::make_unique<NamespaceController>(*context_), settings.concurrent_namespace_syncs});
  started.push_back({std::make_unique<GarbageCollector>(*context_), settings.concurrent_gc_syncs});
  started.push_back({std::make_unique<ReplicaSetController>(*context_, replica_set_flavour()),
                     settings.concurrent_replicaset_syncs});
  started.push_back(
      {std::make_unique<ReplicaSetController>(*context_, replication_controller_flavour()),
       settings.concurrent_rc_syncs});
  started.push_back(
      {std::make_unique<DeploymentController>(*context_), settings.concurrent_deployment_syncs});
  started.push_back(
      {std::make_unique<EndpointsController>(*context_), settings.concurrent_endpoint_syncs});
  started.push_back({std::make_unique<EndpointSliceController>(*context_),
                     settings.concurrent_service_endpoint_syncs});
  started.push_back({std::make_unique<EndpointSliceMirroringController>(*context_),
                     settings.mirroring_concurrent_service_endpoint_syncs});
  started.push_back(
      {std::make_unique<StatefulSetController>(*context_), settings.concurrent_statefulset_syncs});
  started.push_back(
      {std::make_unique<DaemonSetController>(*context_), settings.concurrent_daemonset_syncs});
  // Node health and pod GC each run one worker, as upstream's loops do.
  started.push_back({std::make_unique<NodeLifecycleController>(*context_, settings), 1});
  if (settings.allocate_node_cidrs) {
    started.push_back({std::make_unique<NodeIpamController>(*context_, settings), 1});
  }
  started.push_back({std::make_unique<TaintEvictionController>(*context_), 1});
  started.push_back({std::make_unique<PodGcController>(*context_, settings), 1});
  started.push_back({std::make_unique<JobController>(*context_), settings.concurrent_job_syncs});
  started.push_back(
      {std::make_unique<CronJobController>(*context_), settings.concurrent_cron_job_syncs});
  if (!settings.cluster_signing_dir.empty()) {
    started.push_back(
        {std::make_unique<CsrSigningController>(
             *context_, settings.cluster_signing_dir,
             std::chrono::duration_cast<std::chrono::seconds>(settings.cluster_signing_duration)),
         1});
  }
  started.push_back({std::make_unique<TtlAfterFinishedController>(*context_),
                     settings.concurrent_ttl_after_finished_syncs});
  started.push_back({std::make_unique<ResourceQuotaController>(*context_, settings),
                     settings.concurrent_resource_quota_syncs});
  started.push_back({std::make_unique<PodAutoscalerController>(*context_, settings),
                     settings.concurrent_horizontal_pod_autoscaler_syncs});
  // One worker each, as upstream's (they have no concurrency flag).
  started.push_back({std::make_unique<PvBinderController>(*context_), 1});
  if (settings.local_storage) {
    started.push_back({std::make_unique<LocalPathProvisioner>(*context_, settings), 1});
  }
  started.push_back({std::make_unique<DisruptionController>(*context_), 1});
  informers_->start_all();
  // Workers start once the caches are filled: deciding on a half-listed cache would create
  // what already exists. Queued keys wait meanwhile.
  if (!informers_->wait_synced(std::chrono::seconds(30))) {
    logger->warn("informers not synced after 30 s; starting the controllers anyway");
  }
  std::vector<std::string> names;
  for (auto& s : started) {
    s.controller->run(s.workers);
    names.push_back(s.controller->name());
    controllers_.push_back(std::move(s.controller));
  }
  std::string joined;
  for (const auto& n : names) joined += (joined.empty() ? "" : ", ") + n;
  logger->info("controllers running: {}", joined);
}

void ControllerManagerRole::stop_controllers() {
  std::lock_guard lock(mu_);
  for (auto& c : controllers_) c->stop();
  if (informers_) informers_->stop_all();
  if (events_) events_->stop();
  controllers_.clear();
  context_.reset();
  events_.reset();
  informers_.reset();
}

void ControllerManagerRole::stop() {
  if (leadership_) leadership_->stop();  // releases the lease and stops the controllers
  stop_controllers();
  leadership_.reset();
  client_.reset();
  ready_ = false;
}

}  // namespace k3c::controllers
