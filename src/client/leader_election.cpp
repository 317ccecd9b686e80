#include "client/leader_election.h"

#include "core/ids.h"
#include "core/log.h"
#include "core/thread_set.h"

namespace k3c::client {

using nlohmann::json;

LeaderElector::LeaderElector(Client& client, LeaderElectionConfig config, const Clock& clock)
    : client_(client), config_(std::move(config)), clock_(clock) {}

LeaderElector::~LeaderElector() { stop(); }

void LeaderElector::start() {
  if (!thread_.joinable()) {
    thread_ = std::thread([this] {
      name_this_thread("leader-elect");
      run();
    });
  }
}

void LeaderElector::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void LeaderElector::sleep(std::chrono::nanoseconds d) {
  std::unique_lock lock(mu_);
  cv_.wait_for(lock, d, [&] { return stopping_.load(); });
}

void LeaderElector::run() {
  auto logger = log::for_role("leader-election");
  while (!stopping_) {
    bool holding = try_acquire_or_renew();
    if (holding) last_renew_ = clock_.now();
    if (holding && !leading_) {
      logger->info("{}: became leader as {}", config_.lease_name, config_.identity);
      leading_ = true;
      if (config_.on_started_leading) config_.on_started_leading();
    } else if (!holding && leading_ && clock_.now() - last_renew_ > config_.renew_deadline) {
      logger->error("{}: lost the lease (not renewed within {} ms)", config_.lease_name,
                    config_.renew_deadline.count());
      leading_ = false;
      if (config_.on_stopped_leading) config_.on_stopped_leading();
    }
    sleep(config_.retry_period);
  }
  if (leading_) {
    release();
    leading_ = false;
    if (config_.on_stopped_leading) config_.on_stopped_leading();
  }
}

bool LeaderElector::try_acquire_or_renew() {
  auto now_wall = rfc3339_micro(clock_.wall_now());
  auto current = get(client_, resources::kLeases, config_.lease_namespace, config_.lease_name);
  if (!current.is_ok()) {
    if (current.status().code() != Code::kNotFound) return false;
    json lease = {
        {"apiVersion", "coordination.k8s.io/v1"},
        {"kind", "Lease"},
        {"metadata", {{"name", config_.lease_name}, {"namespace", config_.lease_namespace}}},
        {"spec",
         {{"holderIdentity", config_.identity},
          {"leaseDurationSeconds", config_.lease_duration.count()},
          {"acquireTime", now_wall},
          {"renewTime", now_wall},
          {"leaseTransitions", 0}}}};
    return create(client_, resources::kLeases, config_.lease_namespace, lease).is_ok();
  }
  json lease = std::move(current.value());
  json& spec = lease["spec"];
  if (!spec.is_object()) spec = json::object();
  std::string holder = spec.value("holderIdentity", "");
  std::string version = lease["metadata"].value("resourceVersion", "");
  if (version != observed_version_) {
    observed_version_ = version;
    observed_at_ = clock_.now();
  }
  int64_t duration = spec.value("leaseDurationSeconds", config_.lease_duration.count());
  bool expired = clock_.now() - observed_at_ > std::chrono::seconds(duration);
  if (holder != config_.identity) {
    if (!holder.empty() && !expired) return false;
    spec["leaseTransitions"] = spec.value("leaseTransitions", 0) + 1;
    spec["acquireTime"] = now_wall;
  }
  spec["holderIdentity"] = config_.identity;
  spec["leaseDurationSeconds"] = config_.lease_duration.count();
  spec["renewTime"] = now_wall;
  auto updated = update(client_, resources::kLeases, lease);  // resourceVersion: CAS
  if (!updated.is_ok()) return false;
  observed_version_ = (*updated)["metadata"].value("resourceVersion", "");
  observed_at_ = clock_.now();
  return true;
}

void LeaderElector::release() {
  auto current = get(client_, resources::kLeases, config_.lease_namespace, config_.lease_name);
  if (!current.is_ok()) return;
  json lease = std::move(current.value());
  if (lease["spec"].value("holderIdentity", "") != config_.identity) return;
  lease["spec"]["holderIdentity"] = "";
  lease["spec"]["leaseDurationSeconds"] = 1;
  (void)update(client_, resources::kLeases, lease);
}

LeadershipRun::LeadershipRun(Client& client, const LeaderElectionSettings& settings,
                             std::string lease_name, std::string identity,
                             std::function<void()> lead, std::function<void()> step_down,
                             const Clock& clock) {
  if (!settings.leader_elect) {
    // Off the caller's thread: `lead` may wait for caches to fill.
    unelected_ = std::thread(std::move(lead));
    return;
  }
  LeaderElectionConfig election;
  election.lease_name = std::move(lease_name);
  election.identity = std::move(identity);
  election.lease_duration = settings.lease_duration;
  election.renew_deadline = settings.renew_deadline;
  election.retry_period = settings.retry_period;
  election.on_started_leading = std::move(lead);
  election.on_stopped_leading = std::move(step_down);
  elector_ = std::make_unique<LeaderElector>(client, std::move(election), clock);
  elector_->start();
}

void LeadershipRun::stop() {
  if (elector_) elector_->stop();
  if (unelected_.joinable()) unelected_.join();
}

}  // namespace k3c::client
