// The scheduler role: places pending pods on nodes, as kube-scheduler does. Informers on
// nodes, pods and namespaces feed the cache (scheduler_cache.h) and the queue
// (scheduling_queue.h); one worker thread takes pods off the queue, runs the pure core
// (schedule(), preempt(), fit_error_message()) and writes the outcome to the API: the binding,
// or the PodScheduled=False condition with a FailedScheduling event, deleting preemption
// victims. It talks to the apiserver through the in-process client as system:kube-scheduler,
// and only the holder of the kube-system/kube-scheduler Lease schedules.
//
// Threads: start()/stop() from the RoleRunner. One thread per informer (3), one worker, the
// binder's threads (binder.h), one event writer, one leader elector.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "core/clock.h"
#include "core/lifecycle.h"
#include "roles/scheduler/role/scheduler_config.h"

namespace k3c::client {
class Client;
class EventRecorder;
class Informer;
class LeadershipRun;
}  // namespace k3c::client

namespace k3c::scheduler {

class SchedulerCache;
class SchedulingQueue;
class SchedulingCycle;

class SchedulerRole final : public Role {
 public:
  explicit SchedulerRole(SchedulerConfig config, const Clock& clock = SystemClock::instance());
  ~SchedulerRole() override;

  std::string_view name() const override { return "scheduler"; }
  Status start() override;
  void stop() override;
  bool ready() const override { return ready_; }

 private:
  void start_scheduling();
  void stop_scheduling();
  void watch_pods();
  void watch_nodes();
  void watch_namespaces();
  void run_worker();

  const SchedulerConfig config_;
  const Clock& clock_;
  std::unique_ptr<client::Client> client_;
  std::unique_ptr<client::LeadershipRun> leadership_;
  std::mutex mu_;  // guards the running set below (leader election starts and stops it)
  std::unique_ptr<SchedulerCache> cache_;
  std::unique_ptr<SchedulingQueue> queue_;
  std::unique_ptr<client::EventRecorder> events_;
  std::unique_ptr<client::Informer> pods_, nodes_, namespaces_;
  std::unique_ptr<SchedulingCycle> cycle_;
  std::atomic<bool> worker_stopping_{false};
  std::thread worker_;
  std::atomic<bool> ready_{false};
};

}  // namespace k3c::scheduler
