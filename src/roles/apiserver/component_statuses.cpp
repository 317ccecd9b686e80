// GET and LIST of componentstatuses (see component_probes.h): built at each call from the
// probes, as upstream's REST storage probes the components' health endpoints.
#include "roles/apiserver/actions.h"
#include "roles/apiserver/admission.h"
#include "roles/apiserver/content.h"
#include "roles/apiserver/object_codec.h"

namespace k3c::apiserver {
namespace {

using nlohmann::json;

constexpr const char* kDeprecated = "v1 ComponentStatus is deprecated in v1.19+";

json component_status(const std::string& name, const Status& health) {
  json condition = {{"type", "Healthy"}, {"status", health.is_ok() ? "True" : "False"}};
  if (health.is_ok()) {
    condition["message"] = "ok";
  } else {
    condition["error"] = health.message();
  }
  return {{"kind", "ComponentStatus"},
          {"apiVersion", "v1"},
          {"metadata", {{"name", name}}},
          {"conditions", json::array({condition})}};
}

}  // namespace

http::Response Actions::component_statuses(const Call& c) {
  auto format = negotiate_output(c.request);
  if (!format.ok()) return error_response(format.error());
  auto filter = filter_for(c);
  if (!filter.ok()) return error_response(filter.error());
  ListSnapshot snapshot;
  snapshot.revision = store_.current_revision();
  for (const auto& [name, health] :
       components_ ? components_->run() : std::vector<std::pair<std::string, Status>>{}) {
    if (!c.info.name.empty() && name != c.info.name) continue;
    auto o = std::make_shared<const CachedObject>(
        make_cached(filter.value().prefix + name, component_status(name, health), 0));
    if (filter.value().matches(*o)) snapshot.items.push_back(std::move(o));
  }
  const bool one = !c.info.name.empty();
  if (one && snapshot.items.empty())
    return error_response(not_found("", "componentstatuses", c.info.name));
  // One object as itself (without the list item's resourceVersion, as upstream's has none);
  // a table of one row is what a GET of one gives too.
  http::Response r;
  if (one && format.value() == OutputFormat::kJson) {
    json object = json::parse(snapshot.items[0]->json.text());
    object["metadata"].erase("resourceVersion");
    r = json_response(200, object.dump());
  } else {
    r = rest_.list_answer(c, format.value(), filter.value(), snapshot);
  }
  add_warnings(r, {kDeprecated});
  return r;
}

}  // namespace k3c::apiserver
