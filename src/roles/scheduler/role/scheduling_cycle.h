// One scheduling attempt for a pod taken off the queue, and what it writes to the API:
// decide (schedule()), assume and bind (POST pods/<name>/binding) with a Scheduled event, or,
// when no node fits, preempt (delete the victims, nominate the node) and mark the pod
// PodScheduled=False with a FailedScheduling event. Volumes and PodDisruptionBudgets are read
// from the API when a decision needs them (no informers, hence no threads, for them).
//
// Threads: run() from the role's one worker thread; bindings complete on the binder's threads
// (binder.h), which the destructor joins.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "client/client.h"
#include "client/event_recorder.h"
#include "client/informer.h"
#include "core/clock.h"
#include "roles/scheduler/role/binder.h"
#include "roles/scheduler/role/scheduler_cache.h"
#include "roles/scheduler/role/scheduler_config.h"
#include "roles/scheduler/role/scheduling_queue.h"
#include "roles/scheduler/schedule.h"

namespace k3c::scheduler {

class SchedulingCycle {
 public:
  SchedulingCycle(const SchedulerConfig& config, client::Client& client, SchedulerCache& cache,
                  SchedulingQueue& queue, client::EventRecorder& events,
                  const client::Informer& pods, const Clock& clock);

  void run(const QueuedPod& pod);

 private:
  Status select_node_for_claims(const PodInfo& pod, const std::string& node);
  void bind(const QueuedPod& pod, const std::string& node);
  void finish_binding(const QueuedPod& pod, const std::string& node);
  void unschedulable(const QueuedPod& pod, const ScheduleResult& result);
  void delete_victims(const PodInfo& preemptor, const std::string& node,
                      const std::vector<PodPtr>& victims);
  void load_volumes(const PodInfo& pod);
  void load_disruption_budgets();

  const SchedulerConfig& config_;
  client::Client& client_;
  SchedulerCache& cache_;
  SchedulingQueue& queue_;
  client::EventRecorder& events_;
  const client::Informer& pods_;
  const Clock& clock_;
  size_t next_start_index_ = 0;
  uint64_t seed_;
  size_t preemption_offset_ = 0;
  Binder binder_;  // last: joined first, before the members its bindings use go
};

}  // namespace k3c::scheduler
