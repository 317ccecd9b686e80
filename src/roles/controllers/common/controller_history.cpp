#include "roles/controllers/common/controller_history.h"

#include <algorithm>

#include "api/object_selectors.h"
#include "roles/controllers/common/claim.h"
#include "roles/controllers/common/name_hash.h"

namespace k3c::controllers {

namespace {

// Upstream cuts the owner's name so that <prefix>-<hash> stays a valid name.
constexpr size_t kMaxPrefix = 223;

json normalized_template(json tmpl) {
  if (!tmpl.is_object()) return json::object();
  tmpl.erase("$patch");
  if (auto m = tmpl.find("metadata"); m != tmpl.end() && m->is_object()) {
    if (auto t = m->find("creationTimestamp"); t != m->end() && t->is_null()) m->erase(t);
    if (m->empty()) tmpl.erase("metadata");
  }
  return tmpl;
}

const json& template_in(const json& data) {
  static const json kNull;
  if (!data.is_object()) return kNull;
  auto spec = data.find("spec");
  if (spec == data.end() || !spec->is_object()) return kNull;
  auto t = spec->find("template");
  return t == spec->end() ? kNull : *t;
}

}  // namespace

json revision_data(const json& owner) {
  json tmpl = owner.value("spec", json::object()).value("template", json::object());
  tmpl["$patch"] = "replace";
  return {{"spec", {{"template", std::move(tmpl)}}}};
}

json apply_revision(const json& owner, const json& revision) {
  json out = owner;
  json data = revision.value("data", json());  // named: template_in() points into it
  const json& tmpl = template_in(data);
  if (tmpl.is_object()) out["spec"]["template"] = normalized_template(tmpl);
  return out;
}

std::string revision_hash(const json& data, int64_t collision_count) {
  std::string text = data.dump();
  if (collision_count > 0) text += std::to_string(collision_count);
  return name_hash(text);
}

int64_t revision_number(const json& revision) {
  auto r = revision.find("revision");
  return r != revision.end() && r->is_number_integer() ? r->get<int64_t>() : 0;
}

bool same_data(const json& a, const json& b) {
  return normalized_template(template_in(a)) == normalized_template(template_in(b));
}

Result<std::vector<json>> owned_revisions(client::Client& client, client::Informer& revisions,
                                          const HistoryOwner& h) {
  auto selector =
      api::label_selector_of(h.owner.value("spec", json::object()).value("selector", json()));
  ASSIGN_OR_RETURN(auto owned,
                   claim(client, {client::resources::kControllerRevisions, h.api_version, h.kind},
                         h.owner, selector, revisions));
  std::vector<json> out;
  for (const auto& r : owned) out.push_back(*r);
  std::stable_sort(out.begin(), out.end(), [](const json& a, const json& b) {
    return revision_number(a) < revision_number(b);
  });
  return out;
}

namespace {

Result<json> create_revision(client::Client& client, const HistoryOwner& h, const json& data,
                             int64_t number, const std::string& hash_label, int64_t& collisions) {
  json labels = h.owner.value("spec", json::object())
                    .value("template", json::object())
                    .value("metadata", json::object())
                    .value("labels", json::object());
  // Bounded: each round either succeeds, finds the same data, or counts a collision.
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string hash = revision_hash(data, collisions);
    json revision_labels = labels;
    revision_labels[kRevisionHashLabel] = hash;
    if (!hash_label.empty()) revision_labels[hash_label] = hash;
    std::string name = name_of(h.owner).substr(0, kMaxPrefix) + "-" + hash;
    json revision = {
        {"apiVersion", "apps/v1"},
        {"kind", "ControllerRevision"},
        {"metadata",
         {{"name", name},
          {"namespace", namespace_of(h.owner)},
          {"labels", revision_labels},
          {"ownerReferences", json::array({controller_ref_to(h.owner, h.api_version, h.kind)})}}},
        {"data", data},
        {"revision", number}};
    auto annotations = h.owner["metadata"].find("annotations");
    if (annotations != h.owner["metadata"].end() && annotations->is_object()) {
      json copied = *annotations;
      copied.erase("kubectl.kubernetes.io/last-applied-configuration");
      if (!copied.empty()) revision["metadata"]["annotations"] = copied;
    }
    auto created = client::create(client, client::resources::kControllerRevisions,
                                  namespace_of(h.owner), revision);
    if (created.is_ok()) return created;
    if (created.status().code() != Code::kAlreadyExists) return created.status();
    ASSIGN_OR_RETURN(json existing, client::get(client, client::resources::kControllerRevisions,
                                                namespace_of(h.owner), name));
    const json* ref = controller_ref(existing);
    if (ref && ref->value("uid", "") == uid_of(h.owner) &&
        same_data(existing.value("data", json()), data))
      return existing;
    ++collisions;
  }
  return error(Code::kConflict, "too many ControllerRevision name collisions");
}

}  // namespace

Result<UpdateRevision> sync_update_revision(client::Client& client, const HistoryOwner& h,
                                            std::vector<json> revisions, int64_t collision_count,
                                            const std::string& hash_label) {
  UpdateRevision out;
  out.collision_count = collision_count;
  json data = revision_data(h.owner);
  int64_t next = revisions.empty() ? 1 : revision_number(revisions.back()) + 1;
  // The newest equal revision: the template has not changed since, or it is brought back.
  for (auto it = revisions.rbegin(); it != revisions.rend(); ++it) {
    if (!same_data(it->value("data", json()), data)) continue;
    if (&*it == &revisions.back()) {
      out.revision = *it;
    } else {
      json renumbered = *it;
      renumbered["revision"] = next;
      ASSIGN_OR_RETURN(out.revision,
                       client::update(client, client::resources::kControllerRevisions, renumbered));
      *it = out.revision;
    }
    break;
  }
  if (out.revision.is_null()) {
    ASSIGN_OR_RETURN(out.revision,
                     create_revision(client, h, data, next, hash_label, out.collision_count));
    // An existing revision found by name (cache lag) replaces its stale copy.
    auto same_name = std::find_if(revisions.begin(), revisions.end(), [&](const json& r) {
      return name_of(r) == name_of(out.revision);
    });
    if (same_name != revisions.end()) {
      *same_name = out.revision;
    } else {
      revisions.push_back(out.revision);
    }
  }
  std::stable_sort(revisions.begin(), revisions.end(), [](const json& a, const json& b) {
    return revision_number(a) < revision_number(b);
  });
  out.revisions = std::move(revisions);
  return out;
}

Status truncate_history(client::Client& client, const std::vector<json>& revisions,
                        const std::set<std::string>& in_use, int64_t limit) {
  std::vector<const json*> idle;
  for (const auto& r : revisions) {
    if (!in_use.count(name_of(r))) idle.push_back(&r);
  }
  // `revisions` is sorted oldest first.
  for (size_t i = 0; i + std::max<int64_t>(limit, 0) < idle.size(); ++i) {
    client::DeleteOptions options;
    options.precondition_uid = uid_of(*idle[i]);
    Status s = client::remove(client, client::resources::kControllerRevisions,
                              namespace_of(*idle[i]), name_of(*idle[i]), options);
    if (!s.is_ok() && s.code() != Code::kNotFound) return s;
  }
  return Status::ok();
}

}  // namespace k3c::controllers
