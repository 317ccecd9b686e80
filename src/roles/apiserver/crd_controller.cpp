// The CRD controller loop (see crd_controller.h).
#include "roles/apiserver/crd_controller.h"

#include <algorithm>
#include <set>

#include "api/json_fields.h"
#include "core/ids.h"
#include "core/log.h"
#include "core/thread_set.h"
#include "roles/apiserver/custom_resource.h"

namespace k3c::apiserver {
namespace {

using nlohmann::json;

const std::string kCrdPrefix = "/registry/apiextensions.k8s.io/customresourcedefinitions/";
constexpr auto kIdle = std::chrono::seconds(5);
constexpr auto kRetry = std::chrono::milliseconds(200);

struct StoredCrd {
  std::string key;
  int64_t revision;
  json object;
};

std::string crd_text(const json& o, const char* key) {
  if (!o.is_object()) return "";
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : "";
}

std::vector<std::string> crd_strings(const json& o, const char* key) {
  std::vector<std::string> out;
  if (!o.is_object() || !o.contains(key) || !o[key].is_array()) return out;
  for (const auto& v : o[key]) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

// Upstream's equalToAcceptedOrFresh: a name may be taken when it is already ours or unused.
std::string name_conflict(const std::string& requested, const std::string& accepted,
                          const std::set<std::string>& used) {
  if (requested == accepted || !used.count(requested)) return "";
  return "\"" + requested + "\" is already in use";
}

struct Naming {
  json accepted;
  json names_accepted;  // the NamesAccepted condition (without lastTransitionTime)
  bool ok = false;
};

// Upstream's naming controller for one CRD, given every accepted name of its group.
Naming name_crd(const json& crd, const std::set<std::string>& resources,
                const std::set<std::string>& kinds) {
  const json& requested = crd["spec"]["names"];
  json accepted =
      crd.contains("status") && crd["status"].is_object() && crd["status"].contains("acceptedNames")
          ? crd["status"]["acceptedNames"]
          : json::object();
  if (!accepted.is_object()) accepted = json::object();
  Naming n;
  n.accepted = accepted;
  std::string reason, message;
  auto take = [&](const char* field, const std::set<std::string>& used, const char* why) {
    std::string req = crd_text(requested, field);
    std::string conflict = name_conflict(req, crd_text(accepted, field), used);
    if (!conflict.empty()) {
      reason = why;
      message = conflict;
    } else if (!req.empty()) {
      n.accepted[field] = req;
    }
  };
  take("plural", resources, "PluralConflict");
  take("singular", resources, "SingularConflict");
  std::vector<std::string> short_req = crd_strings(requested, "shortNames");
  std::vector<std::string> short_acc = crd_strings(accepted, "shortNames");
  if (short_req != short_acc) {
    std::string conflicts;
    for (const auto& s : short_req) {
      if (std::find(short_acc.begin(), short_acc.end(), s) != short_acc.end()) continue;
      std::string c = name_conflict(s, "", resources);
      if (c.empty()) continue;
      conflicts += conflicts.empty() ? c : ", " + c;
    }
    if (!conflicts.empty()) {
      reason = "ShortNamesConflict";
      message = conflicts;
    } else if (short_req.empty()) {
      n.accepted.erase("shortNames");
    } else {
      n.accepted["shortNames"] = short_req;
    }
  }
  take("kind", kinds, "KindConflict");
  take("listKind", kinds, "ListKindConflict");
  if (requested.contains("categories")) {
    n.accepted["categories"] = requested["categories"];
  } else {
    n.accepted.erase("categories");
  }
  n.ok = reason.empty();
  n.names_accepted = {{"type", "NamesAccepted"},
                      {"status", n.ok ? "True" : "False"},
                      {"reason", n.ok ? "NoConflicts" : reason},
                      {"message", n.ok ? "no conflicts found" : message}};
  return n;
}

// Sets a condition, keeping lastTransitionTime when the status did not change.
void set_condition(json& status, json condition, const std::string& now) {
  json& conditions = status["conditions"];
  if (!conditions.is_array()) conditions = json::array();
  for (auto& c : conditions) {
    if (!c.is_object() || c.value("type", "") != condition["type"]) continue;
    condition["lastTransitionTime"] =
        c.value("status", "") == condition["status"] ? c.value("lastTransitionTime", now) : now;
    c = std::move(condition);
    return;
  }
  condition["lastTransitionTime"] = now;
  conditions.push_back(std::move(condition));
}

bool has_finalizer(const json& crd) {
  const json& meta = crd["metadata"];
  if (!meta.contains("finalizers") || !meta["finalizers"].is_array()) return false;
  for (const auto& f : meta["finalizers"]) {
    if (f == kCrdCleanupFinalizer) return true;
  }
  return false;
}

}  // namespace

CrdController::CrdController(store::Store& store, WatchCache& cache, ServedApi& api, Rest& rest,
                             const Clock& clock)
    : store_(store), cache_(cache), api_(api), rest_(rest), clock_(clock) {}

CrdController::~CrdController() { stop(); }

Status CrdController::start() {
  RETURN_IF_ERROR(watch());
  reconcile();
  thread_ = std::thread([this] {
    name_this_thread("crd-controller");
    run();
  });
  return Status::ok();
}

void CrdController::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (watch_) watch_->cancel();
}

void CrdController::poke() {
  {
    std::lock_guard lock(mu_);
    poked_ = true;
  }
  wake_.notify_all();
}

Status CrdController::watch() {
  ASSIGN_OR_RETURN(watch_, cache_.watch({kCrdPrefix, {}, {}}, 0));
  watch_->set_wake([this] { poke(); });
  return Status::ok();
}

void CrdController::run() {
  bool retry = false;
  while (true) {
    {
      std::unique_lock lock(mu_);
      wake_.wait_for(lock, retry ? std::chrono::milliseconds(kRetry) : kIdle,
                     [&] { return stopping_ || poked_; });
      if (stopping_) return;
      poked_ = false;
    }
    // The events only say that something changed; each pass reads every CRD again.
    auto batch = watch_->poll();
    if (!batch.ended.is_ok()) {
      watch_->cancel();
      if (!watch().is_ok()) retry = true;
    }
    retry = reconcile() || retry;
  }
}

bool CrdController::reconcile() {
  auto log = log::for_role("apiserver");
  auto listed = cache_.list({kCrdPrefix, {}, {}}, 0, "", 0);
  if (!listed.is_ok()) return true;
  std::vector<StoredCrd> crds;
  for (const auto& item : listed->items) {
    json o = json::parse(item->json.text(), nullptr, false);
    if (!o.is_object() || !o["spec"].is_object() || !o["spec"]["names"].is_object()) continue;
    crds.push_back({item->key, item->revision, std::move(o)});
  }
  // Older CRDs keep their names: process them in creation order.
  std::stable_sort(crds.begin(), crds.end(), [](const StoredCrd& a, const StoredCrd& b) {
    return api::text(api::member(a.object, "metadata"), "creationTimestamp") <
           api::text(api::member(b.object, "metadata"), "creationTimestamp");
  });
  std::map<std::string, json> claimed;  // CRD name -> accepted names, as this pass decides
  for (const auto& c : crds) {
    // Read through member(): a const json's operator[] on a missing key is undefined.
    const json& status = api::member(c.object, "status");
    claimed[c.key] = status.is_object() && status.contains("acceptedNames")
                         ? status["acceptedNames"]
                         : json::object();
  }
  const std::string now = rfc3339(clock_.wall_now());
  std::vector<std::shared_ptr<const CustomResource>> served;
  std::string served_from;
  std::vector<std::pair<StoredCrd*, json>> updates;  // CRDs whose status changes
  for (auto& c : crds) {
    const std::string group = c.object["spec"].value("group", "");
    std::set<std::string> resources, kinds;
    for (const auto& other : crds) {
      if (other.object["spec"].value("group", "") != group) continue;
      const json& names = claimed[other.key];
      for (const char* f : {"plural", "singular"}) resources.insert(crd_text(names, f));
      for (const auto& s : crd_strings(names, "shortNames")) resources.insert(s);
      kinds.insert(crd_text(names, "kind"));
      kinds.insert(crd_text(names, "listKind"));
    }
    Naming naming = name_crd(c.object, resources, kinds);
    claimed[c.key] = naming.accepted;
    json status = c.object["status"].is_object() ? c.object["status"] : json::object();
    status["acceptedNames"] = naming.accepted;
    set_condition(status, naming.names_accepted, now);
    bool established = false;
    for (const auto& cond : status["conditions"]) {
      if (cond.value("type", "") == "Established" && cond.value("status", "") == "True")
        established = true;
    }
    if (naming.ok || established) {
      set_condition(status,
                    {{"type", "Established"},
                     {"status", "True"},
                     {"reason", "InitialNamesAccepted"},
                     {"message", "the initial names have been accepted"}},
                    now);
    } else {
      set_condition(status,
                    {{"type", "Established"},
                     {"status", "False"},
                     {"reason", "NotAccepted"},
                     {"message", "not all names are accepted"}},
                    now);
    }
    if (c.object["metadata"].contains("deletionTimestamp")) {
      set_condition(status,
                    {{"type", "Terminating"},
                     {"status", "True"},
                     {"reason", "InstanceDeletionInProgress"},
                     {"message", "CustomResource deletion is in progress"}},
                    now);
    }
    if (!status["storedVersions"].is_array()) status["storedVersions"] = json::array();
    for (const auto& v : c.object["spec"]["versions"]) {
      if (!v.is_object() || !v.value("storage", false)) continue;
      json& stored = status["storedVersions"];
      if (std::find(stored.begin(), stored.end(), v["name"]) == stored.end())
        stored.push_back(v["name"]);
    }
    json with_status = c.object;
    with_status["status"] = status;
    served_from += c.key + c.object["spec"].dump() + status["acceptedNames"].dump() +
                   (c.object["metadata"].contains("deletionTimestamp") ? "T" : "") + "\n";
    for (auto& cr : custom_resources_of(with_status)) {
      // A name a built-in resource already uses stays with the built-in one.
      if (api_.current()->registry->find(cr->resource.group, cr->resource.version,
                                         cr->resource.plural) &&
          !api_.current()->custom_resource(cr->resource.group, cr->resource.version,
                                           cr->resource.plural)) {
        continue;
      }
      served.push_back(std::move(cr));
    }
    if (status != c.object["status"]) updates.push_back({&c, std::move(status)});
  }
  bool retry = false;
  // Serve first: a client that saw Established must find the resource.
  if (served_from != served_from_) {
    if (Status s = api_.serve(served); s.is_ok()) {
      served_from_ = std::move(served_from);
    } else {
      log->warn("serving custom resources: {}", s.message());
      retry = true;
    }
  }
  for (auto& [c, status] : updates) {
    json updated = c->object;
    updated["status"] = std::move(status);
    updated["metadata"].erase("resourceVersion");
    auto written = store_.update(c->key, updated.dump(), c->revision);
    if (!written.is_ok()) {
      retry = true;
      continue;
    }
    c->revision = written->mod_revision;
    c->object = std::move(updated);
  }
  auto snapshot = api_.current();
  for (auto& c : crds) {
    if (!c.object["metadata"].contains("deletionTimestamp") || !has_finalizer(c.object)) continue;
    std::string prefix = api::custom_resource_storage_prefix(c.object["spec"].value("group", ""),
                                                             crd_text(claimed[c.key], "plural")) +
                         "/";
    auto remaining = cache_.list({prefix, {}, {}}, 0, "", 0);
    if (!remaining.is_ok()) {
      retry = true;
      continue;
    }
    if (!remaining->items.empty()) {
      // Delete through the REST layer so that the objects' own finalizers are honoured.
      const CustomResource* cr = nullptr;
      for (const auto& s : snapshot->custom) {
        if (s->crd_name == c.object["metadata"].value("name", "")) cr = s.get();
      }
      if (cr) {
        RequestInfo info;
        info.verb = "deletecollection";
        info.group = cr->resource.group;
        info.version = cr->resource.version;
        info.resource = cr->resource.plural;
        http::Request request;
        request.method = "DELETE";
        auto r = rest_.remove_collection({info, cr->resource, request, cr});
        if (r.status >= 400) log->warn("deleting custom resources of {}: {}", c.key, r.body);
      }
      retry = true;
      continue;
    }
    json updated = c.object;
    json& meta = updated["metadata"];
    json kept = json::array();
    for (const auto& f : meta["finalizers"]) {
      if (f != kCrdCleanupFinalizer) kept.push_back(f);
    }
    meta.erase("resourceVersion");
    Status s;
    if (kept.empty()) {
      // Stop serving first, so that a client that saw the CRD go finds the resource gone.
      const std::string name = c.object["metadata"].value("name", "");
      std::erase_if(served, [&](const auto& cr) { return cr->crd_name == name; });
      served_from_.clear();  // the next pass serves what is left again
      if (!api_.serve(served).is_ok()) retry = true;
      s = store_.remove(c.key, c.revision).status();
    } else {
      meta["finalizers"] = kept;
      s = store_.update(c.key, updated.dump(), c.revision).status();
    }
    if (!s.is_ok()) retry = true;
  }
  return retry;
}

}  // namespace k3c::apiserver
