// Hollow nodes: registration, heartbeats and the pod side (see hollow_nodes.h).
#include "roles/hollow/hollow_nodes.h"

#include "api/json_fields.h"
#include "core/log.h"
#include "core/version.h"
#include "roles/hollow/hollow_pod_status.h"
#include "roles/kubelet/node_reporter.h"
#include "roles/kubelet/pods/pod_api_writes.h"

namespace k3c::hollow {
namespace {

using nlohmann::json;
namespace res = client::resources;

// A pod whose node has no podCIDR yet is looked at again after this long.
constexpr auto kCidrRecheck = std::chrono::seconds(1);

// The machine one hollow node reports: the host's kernel, OS and architecture, its own size
// and identity.
class FixedProbe final : public kubelet::MachineProbe {
 public:
  explicit FixedProbe(kubelet::MachineInfo info) : info_(std::move(info)) {}
  kubelet::MachineInfo probe() const override { return info_; }

 private:
  const kubelet::MachineInfo info_;
};

std::string uuid_shaped(const std::string& hex) {
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" +
         hex.substr(16, 4) + "-" + hex.substr(20, 12);
}

const json& meta_of(const json& o) { return api::member(o, "metadata"); }

// Every pod bound to some node: one watch for all the hollow nodes.
client::ListOptions bound_pods() {
  client::ListOptions options;
  options.field_selector = "spec.nodeName!=";
  return options;
}

}  // namespace

std::string node_name(const HollowSettings& settings, int index) {
  return settings.name_prefix + std::to_string(index);
}

std::string node_address(int index) {
  const uint32_t host = static_cast<uint32_t>(index) + 1;  // 172.16.0.1, 172.16.0.2, ...
  return "172." + std::to_string(16 + (host >> 16 & 15)) + "." + std::to_string(host >> 8 & 255) +
         "." + std::to_string(host & 255);
}

struct HollowNodes::Node {
  std::string name;
  kubelet::NodeFacts facts;
  FixedProbe probe;
  kubelet::KubeletSettings kubelet;
  std::unique_ptr<kubelet::NodeReporter> reporter;
  bool registered = false;  // heartbeat thread only
};

HollowNodes::HollowNodes(client::Client& client, HollowSettings settings,
                         kubelet::MachineInfo machine, const Clock& clock)
    : client_(client),
      settings_(std::move(settings)),
      clock_(clock),
      pods_(client, res::kPods, bound_pods()),
      node_objects_(client, res::kNodes),
      queue_(clock) {
  for (int i = 0; i < settings_.count; ++i) {
    const std::string name = node_name(settings_, i);
    kubelet::MachineInfo info = machine;
    const std::string id = fake_digest("node/" + name);
    info.hostname = name;
    info.cpus = settings_.cpus;
    info.memory_bytes = settings_.memory_bytes;
    info.ephemeral_storage_bytes = 100LL << 30;
    info.machine_id = id.substr(0, 32);
    info.system_uuid = uuid_shaped(id.substr(32));
    info.boot_id = uuid_shaped(fake_digest("boot/" + name));
    info.default_ipv4 = node_address(i);
    kubelet::NodeIdentity identity;
    identity.name = name;
    identity.node_ips = {node_address(i)};
    identity.kubelet_version = settings_.kubelet_version;
    identity.runtime_version = std::string("k3c-hollow://") + version::kVersion;
    identity.max_pods = settings_.max_pods;
    auto node = std::unique_ptr<Node>(new Node{name, {}, FixedProbe(info), {}, nullptr});
    node->facts.name = name;
    node->facts.host_ips = identity.node_ips;
    node->kubelet.max_pods = settings_.max_pods;
    node->reporter = std::make_unique<kubelet::NodeReporter>(
        client_, identity, node->probe, nullptr, nullptr, node->kubelet, clock_);
    by_name_[name] = node.get();
    nodes_.push_back(std::move(node));
  }
  auto enqueue = [this](const client::ObjectPtr& pod) {
    if (pod && ours(*pod)) queue_.add(client::key_of(*pod));
  };
  pods_.add_handler(
      {.on_add = enqueue,
       .on_update = [enqueue](const client::ObjectPtr&, const client::ObjectPtr& now) {
         enqueue(now);
       },
       .on_delete =
           [this](const client::ObjectPtr& pod) {
             if (pod) forget_pod(api::text(meta_of(*pod), "uid"));
           }});
}

HollowNodes::~HollowNodes() { stop(); }

bool HollowNodes::ours(const json& pod) const {
  return by_name_.count(api::text(api::member(pod, "spec"), "nodeName")) > 0;
}

void HollowNodes::start() {
  node_objects_.start();
  pods_.start();
  for (int i = 0; i < settings_.status_workers; ++i) threads_.emplace_back([this] { work(); });
  const int heartbeaters = std::max(1, std::min(settings_.heartbeat_threads, settings_.count));
  for (int i = 0; i < heartbeaters; ++i) {
    threads_.emplace_back([this, i] { heartbeat_loop(i); });
  }
}

void HollowNodes::stop() {
  {
    std::lock_guard lock(stop_mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  stop_cv_.notify_all();
  queue_.shut_down();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
  pods_.stop();
  node_objects_.stop();
}

bool HollowNodes::sleep_until(Clock::TimePoint when) {
  std::unique_lock lock(stop_mu_);
  while (!stopping_) {
    const auto left = when - clock_.now();
    if (left <= Clock::TimePoint::duration::zero()) return true;
    stop_cv_.wait_for(lock, std::min<Clock::TimePoint::duration>(left, std::chrono::seconds(1)));
  }
  return false;
}

void HollowNodes::heartbeat_loop(int thread_index) {
  const int threads = std::max(1, std::min(settings_.heartbeat_threads, settings_.count));
  std::vector<Node*> mine;
  for (size_t i = thread_index; i < nodes_.size(); i += threads) mine.push_back(nodes_[i].get());
  // The first round registers every node at once; later rounds spread the nodes over the
  // period, each one period after its last heartbeat.
  for (Node* node : mine) {
    if (!sleep_until(clock_.now())) return;
    heartbeat(*node);
  }
  const auto period = settings_.heartbeat_period;
  const auto step = period / std::max<size_t>(1, mine.size());
  auto round_start = clock_.now() + period;
  while (true) {
    for (size_t k = 0; k < mine.size(); ++k) {
      if (!sleep_until(round_start + step * k)) return;
      heartbeat(*mine[k]);
    }
    round_start += period;
    // Far behind (a stalled server): start the next round now rather than racing to catch up.
    if (round_start < clock_.now()) round_start = clock_.now();
  }
}

void HollowNodes::heartbeat(Node& node) {
  auto logger = log::for_role("hollow-nodes");
  if (!node.registered) {
    if (Status s = node.reporter->register_node(); !s.is_ok()) {
      logger->warn("registering node {}: {}", node.name, s.message());
      return;
    }
    node.registered = true;
    ++registered_;
  }
  if (Status s = node.reporter->renew_lease(); !s.is_ok()) {
    logger->warn("node {}: lease: {}", node.name, s.message());
  }
  Status s = node.reporter->sync_status();
  if (s.code() == Code::kNotFound) {  // deleted: register again at the next heartbeat
    node.registered = false;
    --registered_;
  } else if (!s.is_ok()) {
    logger->warn("node {}: status: {}", node.name, s.message());
  }
}

void HollowNodes::work() {
  while (auto key = queue_.get()) {
    Status s = sync_pod(*key);
    if (s.is_ok()) {
      queue_.forget(*key);
    } else {
      if (s.code() != Code::kConflict) {
        log::for_role("hollow-nodes")->warn("pod {}: {}", *key, s.message());
      }
      queue_.add_rate_limited(*key);
    }
    queue_.done(*key);
  }
}

void HollowNodes::forget_pod(const std::string& uid) {
  addresses_.release(uid);
  std::lock_guard lock(records_mu_);
  auto it = records_.find(uid);
  if (it == records_.end()) return;
  if (it->second.written != 0) --reported_;
  records_.erase(it);
}

Status HollowNodes::sync_pod(const std::string& key) {
  client::ObjectPtr cached = pods_.get(key);
  if (!cached || !ours(*cached)) return Status::ok();
  const json& pod = *cached;
  const std::string uid = api::text(meta_of(pod), "uid");
  if (meta_of(pod).contains("deletionTimestamp")) {
    // Nothing runs here: the containers are gone the moment the deletion is seen.
    RETURN_IF_ERROR(kubelet::confirm_pod_deletion(client_, pod));
    forget_pod(uid);
    return Status::ok();
  }
  const std::string phase = api::text(api::member(pod, "status"), "phase");
  if (phase == "Succeeded" || phase == "Failed") return Status::ok();
  const Node& node = *by_name_.at(api::text(api::member(pod, "spec"), "nodeName"));
  client::ObjectPtr node_object = node_objects_.get(node.name);
  const std::string cidr =
      node_object ? api::text(api::member(*node_object, "spec"), "podCIDR") : "";
  if (cidr.empty()) {  // node IPAM has not given the node its range yet
    queue_.add_after(key, kCidrRecheck);
    return Status::ok();
  }
  ASSIGN_OR_RETURN(std::string ip, addresses_.assign(node.name, cidr, uid));
  PodRecord record;
  {
    std::lock_guard lock(records_mu_);
    auto [it, added] = records_.try_emplace(uid, PodRecord{clock_.wall_now(), 0});
    record = it->second;
  }
  const json status = hollow_pod_status(pod, ip, record.started, node.facts, clock_.wall_now());
  if (status == api::member(pod, "status")) return Status::ok();
  // The cache may not have seen the last write yet: the same status is not sent twice.
  const size_t fingerprint = std::hash<std::string>{}(status.dump());
  if ((fingerprint | 1) == record.written) return Status::ok();
  Status written = kubelet::patch_pod_status(client_, pod, status);
  if (written.code() == Code::kNotFound) return Status::ok();  // gone meanwhile
  RETURN_IF_ERROR(written);
  std::lock_guard lock(records_mu_);
  if (auto it = records_.find(uid); it != records_.end()) {
    if (it->second.written == 0) ++reported_;
    it->second.written = fingerprint | 1;  // never 0
  }
  return Status::ok();
}

}  // namespace k3c::hollow
