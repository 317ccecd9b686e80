#include "roles/controllers/namespace/namespace_controller.h"

#include "roles/controllers/common/objects.h"

namespace k3c::controllers {

namespace {

constexpr auto kRecheck = std::chrono::seconds(2);

Result<json> get_json(client::Client& c, const std::string& path) {
  auto reply = c.request("GET", path);
  if (!reply.is_ok()) return reply.status();
  if (reply->status != 200) return client::status_of(*reply);
  json body = json::parse(reply->body, nullptr, false);
  if (body.is_discarded()) return error(Code::kInternal, "invalid discovery document " + path);
  return body;
}

bool has_verb(const json& resource, std::string_view verb) {
  for (const auto& v : resource.value("verbs", json::array())) {
    if (v.is_string() && v.get_ref<const std::string&>() == verb) return true;
  }
  return false;
}

void add_resources(const json& list, const std::string& group, const std::string& version,
                   std::vector<client::ResourceId>& out) {
  for (const auto& r : list.value("resources", json::array())) {
    std::string name = r.value("name", "");
    if (name.empty() || name.find('/') != std::string::npos) continue;  // subresources
    if (!r.value("namespaced", false) || !has_verb(r, "list") || !has_verb(r, "deletecollection"))
      continue;
    out.push_back({group, version, name, true});
  }
}

}  // namespace

NamespaceController::NamespaceController(ControllerContext& ctx)
    : Controller("namespace"),
      ctx_(ctx),
      namespaces_(ctx.informers.informer(client::resources::kNamespaces)) {
  auto maybe = [this](const client::ObjectPtr& o) {
    if (being_deleted(*o)) enqueue(name_of(*o));
  };
  namespaces_.add_handler({maybe, [=](auto&, auto& o) { maybe(o); }, nullptr});
}

Result<std::vector<client::ResourceId>> NamespaceController::deletable_resources() {
  std::vector<client::ResourceId> out;
  ASSIGN_OR_RETURN(json core, get_json(ctx_.client, "/api/v1"));
  add_resources(core, "", "v1", out);
  ASSIGN_OR_RETURN(json groups, get_json(ctx_.client, "/apis"));
  for (const auto& g : groups.value("groups", json::array())) {
    const json& preferred = g.value("preferredVersion", json::object());
    std::string gv = preferred.value("groupVersion", "");
    if (gv.empty()) continue;
    ASSIGN_OR_RETURN(json list, get_json(ctx_.client, "/apis/" + gv));
    add_resources(list, g.value("name", ""), preferred.value("version", ""), out);
  }
  return out;
}

Status NamespaceController::reconcile(const std::string& name) {
  auto ns = namespaces_.get(name);
  if (!ns || !being_deleted(*ns)) return Status::ok();
  ASSIGN_OR_RETURN(auto resources, deletable_resources());
  std::vector<std::string> remaining, failures;
  for (const auto& r : resources) {
    auto reply = ctx_.client.request("DELETE", r.path(name));
    if (!reply.is_ok() || (reply->status != 200 && reply->status != 404 && reply->status != 405 &&
                           reply->status != 501)) {
      failures.push_back(r.plural);
      continue;
    }
    auto left = client::list(ctx_.client, r, name, {.limit = 1});
    if (left.is_ok() && !(*left)["items"].empty()) {
      remaining.push_back(r.plural + (r.group.empty() ? "" : "." + r.group));
    }
  }
  // Conditions as upstream: what is left, and what could not be deleted.
  json updated = *ns;
  json& status = updated["status"];
  std::string now = ctx_.now();
  bool changed = set_condition(
      status, "NamespaceDeletionContentFailure", failures.empty() ? "False" : "True",
      failures.empty() ? "ContentDeleted" : "ContentDeletionFailed",
      failures.empty() ? "All content successfully deleted, may be waiting on finalization"
                       : "Failed to delete all resource types, " + std::to_string(failures.size()) +
                             " remaining",
      now);
  std::string left_message = "Some resources are remaining: ";
  for (size_t i = 0; i < remaining.size(); ++i) left_message += (i ? ", " : "") + remaining[i];
  changed |=
      set_condition(status, "NamespaceContentRemaining", remaining.empty() ? "False" : "True",
                    remaining.empty() ? "ContentRemoved" : "SomeResourcesRemain",
                    remaining.empty() ? "All content successfully removed" : left_message, now);
  if (changed) {
    auto written = client::update(ctx_.client, client::resources::kNamespaces, updated, "status");
    if (!written.is_ok()) return written.status();
    updated = std::move(written.value());
  }
  if (!remaining.empty() || !failures.empty()) {
    enqueue_after(name, kRecheck);
    return Status::ok();
  }
  // Empty: drop the `kubernetes` finalizer, then delete the namespace for good.
  json finalizers = json::array();
  for (const auto& f : updated["spec"].value("finalizers", json::array())) {
    if (f != "kubernetes") finalizers.push_back(f);
  }
  if (finalizers != updated["spec"].value("finalizers", json::array())) {
    updated["spec"]["finalizers"] = finalizers;
    auto written = client::update(ctx_.client, client::resources::kNamespaces, updated, "finalize");
    if (!written.is_ok()) return written.status();
  }
  if (!finalizers.empty()) return Status::ok();  // another finalizer's owner finishes it
  Status removed = client::remove(ctx_.client, client::resources::kNamespaces, "", name);
  if (!removed.is_ok() && removed.code() != Code::kNotFound) return removed;
  return Status::ok();
}

}  // namespace k3c::controllers
