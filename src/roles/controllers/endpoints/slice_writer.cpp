#include "roles/controllers/endpoints/slice_writer.h"

#include <algorithm>

#include "api/json_fields.h"

namespace k3c::controllers {
namespace {

// From the first endpoint's address (slices hold one family each).
std::string address_type(const SliceContent& c) {
  if (!c.address_type.empty()) return c.address_type;
  return !c.endpoints.empty() &&
                 c.endpoints[0]["addresses"][0].get<std::string>().find(':') != std::string::npos
             ? "IPv6"
             : "IPv4";
}

}  // namespace

std::string slice_service_key(const json& slice, const char* managed_by) {
  const json& labels = api::member(api::member(slice, "metadata"), "labels");
  if (api::text(labels, kManagedByLabel) != managed_by) return "";
  const std::string service = api::text(labels, kServiceNameLabel);
  return service.empty() ? "" : namespace_of(slice) + "/" + service;
}

client::EventHandler slice_handler(Controller& controller, Expectations& expectations,
                                   const char* managed_by) {
  auto keyed = [managed_by, &controller](const client::ObjectPtr& s, auto&& observed) {
    const std::string key = slice_service_key(*s, managed_by);
    if (key.empty()) return;
    observed(key);
    controller.enqueue(key);
  };
  return {[=, &expectations](const client::ObjectPtr& s) {
            keyed(s, [&](const std::string& k) { expectations.creation_observed(k); });
          },
          [=](const client::ObjectPtr&, const client::ObjectPtr& s) {
            keyed(s, [](const std::string&) {});
          },
          [=, &expectations](const client::ObjectPtr& s) {
            keyed(s, [&](const std::string& k) { expectations.deletion_observed(k); });
          }};
}

Status write_slices(ControllerContext& ctx, Expectations& expectations, const std::string& key,
                    const SliceSet& set, const std::vector<SliceContent>& desired,
                    std::vector<json> existing) {
  std::sort(existing.begin(), existing.end(),
            [](const json& a, const json& b) { return name_of(a) < name_of(b); });
  const size_t creations = desired.size() > existing.size() ? desired.size() - existing.size() : 0;
  const size_t deletions = existing.size() > desired.size() ? existing.size() - desired.size() : 0;
  expectations.expect(key, static_cast<int>(creations), static_cast<int>(deletions));

  for (size_t i = 0; i < desired.size(); ++i) {
    const SliceContent& want = desired[i];
    if (i < existing.size()) {
      const json& have = existing[i];
      if (api::member(have, "endpoints") == want.endpoints &&
          api::member(have, "ports") == want.ports &&
          api::member(api::member(have, "metadata"), "labels") == set.labels &&
          api::text(have, "addressType") == address_type(want)) {
        continue;
      }
      json updated = have;
      updated["endpoints"] = want.endpoints;
      updated["ports"] = want.ports;
      updated["addressType"] = address_type(want);
      updated["metadata"]["labels"] = set.labels;
      auto written = client::update(ctx.client, client::resources::kEndpointSlices, updated);
      if (!written.is_ok()) return written.status();
      continue;
    }
    json slice = {{"apiVersion", "discovery.k8s.io/v1"},
                  {"kind", "EndpointSlice"},
                  {"metadata",
                   {{"generateName", set.service + "-"},
                    {"namespace", set.ns},
                    {"labels", set.labels},
                    {"ownerReferences", json::array({set.owner_ref})}}},
                  {"addressType", address_type(want)},
                  {"endpoints", want.endpoints},
                  {"ports", want.ports}};
    auto created = client::create(ctx.client, client::resources::kEndpointSlices, set.ns, slice);
    if (!created.is_ok()) {
      expectations.creation_observed(key);  // will not be observed
      return created.status();
    }
  }
  for (size_t i = desired.size(); i < existing.size(); ++i) {
    client::DeleteOptions options;
    options.precondition_uid = uid_of(existing[i]);
    Status removed = client::remove(ctx.client, client::resources::kEndpointSlices, set.ns,
                                    name_of(existing[i]), options);
    if (!removed.is_ok()) {
      expectations.deletion_observed(key);
      if (removed.code() != Code::kNotFound) return removed;
    }
  }
  return Status::ok();
}

}  // namespace k3c::controllers
