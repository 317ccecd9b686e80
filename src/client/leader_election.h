// Leader election on a coordination.k8s.io/v1 Lease, as upstream's leaderelection package:
// the holder renews spec.renewTime every retry period; another candidate takes the lease
// over when it has seen no change of it for leaseDurationSeconds (measured on its own clock,
// so clock skew between servers does not matter). With one server, it simply wins.
//
// Threads: run on its own thread; the callbacks are called on it.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "client/client.h"
#include "client/leader_election_settings.h"
#include "core/clock.h"

namespace k3c::client {

struct LeaderElectionConfig {
  std::string lease_namespace = "kube-system";
  std::string lease_name;  // kube-controller-manager, kube-scheduler
  std::string identity;    // <host>_<uuid>
  std::chrono::seconds lease_duration{15};
  std::chrono::milliseconds renew_deadline{10'000};
  std::chrono::milliseconds retry_period{2'000};
  std::function<void()> on_started_leading;
  std::function<void()> on_stopped_leading;
};

class LeaderElector {
 public:
  LeaderElector(Client& client, LeaderElectionConfig config,
                const Clock& clock = SystemClock::instance());
  ~LeaderElector();
  void start();
  // Stops trying; a leader releases the lease (empties holderIdentity) so that another
  // server takes over at once, then on_stopped_leading runs.
  void stop();
  bool leading() const { return leading_; }

 private:
  void run();
  // One attempt to acquire or renew; true when we hold the lease afterwards.
  bool try_acquire_or_renew();
  void release();
  void sleep(std::chrono::nanoseconds d);

  Client& client_;
  const LeaderElectionConfig config_;
  const Clock& clock_;
  std::atomic<bool> leading_{false};
  std::atomic<bool> stopping_{false};
  // What we last saw of the lease, and when (our clock).
  std::string observed_version_;
  Clock::TimePoint observed_at_{};
  Clock::TimePoint last_renew_{};
  std::mutex mu_;
  std::condition_variable cv_;
  std::thread thread_;
};

// What the roles that act only while elected share (controller manager, scheduler): `lead`
// runs once this process holds the Lease `lease_name` (again after a lost lease is won back),
// `step_down` when it is lost; with leader election off (--*-arg leader-elect=false) `lead`
// runs at once, on a thread of its own, as it would for a lone server. stop() releases the
// lease (which steps down) or waits for that thread; the caller then stops what `lead`
// started.
class LeadershipRun {
 public:
  LeadershipRun(Client& client, const LeaderElectionSettings& settings, std::string lease_name,
                std::string identity, std::function<void()> lead, std::function<void()> step_down,
                const Clock& clock = SystemClock::instance());
  ~LeadershipRun() { stop(); }
  void stop();

 private:
  std::unique_ptr<LeaderElector> elector_;
  std::thread unelected_;
};

}  // namespace k3c::client
