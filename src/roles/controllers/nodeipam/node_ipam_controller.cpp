#include "roles/controllers/nodeipam/node_ipam_controller.h"

#include <set>

#include "api/json_fields.h"
#include "roles/controllers/nodeipam/cidr_slices.h"

namespace k3c::controllers {
namespace {

// The node's pod CIDRs (spec.podCIDRs, or the older spec.podCIDR).
std::vector<std::string> pod_cidrs_of(const json& node) {
  const json& spec = api::member(node, "spec");
  std::vector<std::string> cidrs;
  for (const json& c : api::member(spec, "podCIDRs")) {
    if (c.is_string()) cidrs.push_back(c.get<std::string>());
  }
  if (cidrs.empty() && !api::text(spec, "podCIDR").empty()) {
    cidrs.push_back(api::text(spec, "podCIDR"));
  }
  return cidrs;
}

}  // namespace

NodeIpamController::NodeIpamController(ControllerContext& ctx,
                                       const ControllerManagerSettings& settings)
    : Controller("node-ipam"),
      ctx_(ctx),
      cluster_(settings.cluster_cidr),
      mask_(settings.node_cidr_mask_size),
      nodes_(ctx.informers.informer(client::resources::kNodes)) {
  auto changed = [this](const client::ObjectPtr& node) {
    observe(*node, false);
    if (pod_cidrs_of(*node).empty()) enqueue(name_of(*node));
  };
  nodes_.add_handler({changed, [=](auto&, auto& now) { changed(now); },
                      [this](const client::ObjectPtr& node) { observe(*node, true); }});
}

void NodeIpamController::observe(const json& node, bool deleted) {
  std::vector<uint32_t> slices;
  if (!deleted) {
    for (const auto& text : pod_cidrs_of(node)) {
      auto cidr = parse_ipv4_cidr(text);
      if (cidr && is_slice_of(*cidr, cluster_, mask_)) slices.push_back(cidr->network);
    }
  }
  const std::string& name = name_of(node);
  std::lock_guard lock(mu_);
  if (deleted || !slices.empty()) handed_out_.erase(name);  // the cache has it now, or it is gone
  if (slices.empty()) {
    cached_.erase(name);
  } else {
    cached_[name] = std::move(slices);
  }
}

Status NodeIpamController::reconcile(const std::string& key) {
  auto node = nodes_.get(key);
  if (!node || being_deleted(*node) || !pod_cidrs_of(*node).empty()) return Status::ok();

  std::set<uint32_t> used;
  {
    std::lock_guard lock(mu_);
    for (const auto& [name, slices] : cached_) used.insert(slices.begin(), slices.end());
    // Slices given to nodes the cache does not show with one yet; a node gone (its deletion
    // seen before the slice was recorded) frees its slice.
    for (auto it = handed_out_.begin(); it != handed_out_.end();) {
      if (!nodes_.contains(it->first)) {
        it = handed_out_.erase(it);
      } else {
        used.insert(it->second);
        ++it;
      }
    }
  }
  auto slice = first_free_slice(cluster_, mask_, used);
  if (!slice) {
    ctx_.events.record(*node, "Normal", "CIDRNotAvailable",
                       "Node " + key + " status is now: CIDRNotAvailable", "cidrAllocator");
    return error(Code::kServiceUnavailable,
                 "no pod CIDR left in " + to_string(cluster_) + " for node " + key);
  }
  const std::string cidr = to_string(*slice);
  json patch = {{"spec", {{"podCIDR", cidr}, {"podCIDRs", {cidr}}}}};
  Status patched = client::patch_unanswered(ctx_.client, client::resources::kNodes, "", key,
                                            "application/merge-patch+json", patch);
  if (!patched.is_ok()) return patched.code() == Code::kNotFound ? Status::ok() : patched;
  std::lock_guard lock(mu_);
  // Unless the cache has already shown the node with it.
  if (!cached_.count(key)) handed_out_[key] = slice->network;
  return Status::ok();
}

}  // namespace k3c::controllers
