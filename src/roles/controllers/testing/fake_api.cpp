#include "roles/controllers/testing/fake_api.h"

#include <algorithm>

#include "push_stream.h"

namespace k3c::controllers::testing {

using nlohmann::json;

// The watch body one watcher reads: lines pushed on writes.
class FakeApi::Watch final : public k3c::testing::PushStream {};

namespace {

// "/api/v1/namespaces/ns/pods/p/status" -> the resource's path without namespace
// ("/api/v1/pods"), the namespace, the name and the subresource.
struct Path {
  std::string resource;  // "/api/v1/pods"
  std::string ns, name, subresource;
  std::string collection() const {
    if (ns.empty()) return resource;
    auto slash = resource.rfind('/');
    return resource.substr(0, slash) + "/namespaces/" + ns + resource.substr(slash);
  }
  std::string object() const { return collection() + "/" + name; }
};

Path parse(const std::string& path) {
  std::vector<std::string> parts;
  for (size_t start = 1; start <= path.size();) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    parts.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  const size_t gv = parts.at(0) == "api" ? 2 : 3;  // api/v1 or apis/<group>/<version>
  std::string prefix;
  for (size_t i = 0; i < gv; ++i) prefix += "/" + parts.at(i);
  Path p;
  size_t i = gv;
  if (parts.size() > i + 1 && parts[i] == "namespaces" && parts.size() > i + 2) {
    p.ns = parts[i + 1];
    i += 2;
  }
  p.resource = prefix + "/" + parts.at(i);
  if (parts.size() > i + 1) p.name = parts[i + 1];
  if (parts.size() > i + 2) p.subresource = parts[i + 2];
  return p;
}

http::Response reply(int status, const json& body) {
  http::Response r;
  r.status = status;
  r.body = body.dump();
  r.set_header("Content-Type", "application/json");
  return r;
}

http::Response not_found(const std::string& what) {
  return reply(404, {{"kind", "Status"},
                     {"apiVersion", "v1"},
                     {"status", "Failure"},
                     {"reason", "NotFound"},
                     {"code", 404},
                     {"message", what + " not found"}});
}

}  // namespace

void FakeApi::seed(const std::string& collection_path, json object) {
  std::lock_guard lock(mu_);
  object["metadata"]["resourceVersion"] = std::to_string(++revision_);
  if (!object["metadata"].contains("uid")) {
    object["metadata"]["uid"] = "uid-" + object["metadata"].value("name", "");
  }
  const std::string path = collection_path + "/" + object["metadata"].value("name", "");
  objects_[path] = std::move(object);
}

std::vector<FakeApi::Action> FakeApi::actions() const {
  std::lock_guard lock(mu_);
  return actions_;
}

json FakeApi::object(const std::string& path) const {
  std::lock_guard lock(mu_);
  auto it = objects_.find(path);
  return it == objects_.end() ? json() : it->second;
}

void FakeApi::hold(const std::string& resource) {
  std::lock_guard lock(mu_);
  held_[resource];
}

void FakeApi::release(const std::string& resource) {
  std::vector<std::pair<std::shared_ptr<Watch>, std::string>> lines;
  {
    std::lock_guard lock(mu_);
    auto it = held_.find(resource);
    if (it == held_.end()) return;
    lines = std::move(it->second);
    held_.erase(it);
  }
  for (auto& [watch, line] : lines) watch->push(std::move(line));
}

void FakeApi::notify(const std::string& type, const std::string& collection, const json& o) {
  const std::string line = json{{"type", type}, {"object", o}}.dump() + "\n";
  const Path p = parse(collection + "/x");
  auto held = held_.find(p.resource);
  for (auto& [prefix, watch] : watches_) {
    // A watch of the whole resource sees every namespace.
    if (prefix != collection && prefix != p.resource) continue;
    if (held != held_.end()) {
      held->second.emplace_back(watch, line);
    } else {
      watch->push(line);
    }
  }
}

http::Response FakeApi::handle(http::Request& request) {
  std::lock_guard lock(mu_);
  const Path p = parse(request.path);
  const std::string& verb = request.method;
  if (verb == "GET" && p.name.empty()) {
    const std::string collection = p.collection();
    if (request.param("watch")) {
      auto watch = std::make_shared<Watch>();
      watches_.push_back({collection, watch});
      http::Response r;
      r.stream = watch;
      return r;
    }
    json items = json::array();
    for (const auto& [path, o] : objects_) {
      const Path op = parse(path);
      if (op.resource == p.resource && (p.ns.empty() || op.ns == p.ns)) items.push_back(o);
    }
    return reply(200, {{"kind", "List"},
                       {"metadata", {{"resourceVersion", std::to_string(revision_)}}},
                       {"items", items}});
  }
  auto it = objects_.find(p.object());
  if (verb == "GET") return it == objects_.end() ? not_found(p.object()) : reply(200, it->second);
  json body = request.body.empty() ? json() : json::parse(request.body, nullptr, false);
  const bool dry_run = request.param("dryRun") == "All";
  if (!dry_run) actions_.push_back({verb, request.path, body});    // a dry run writes nothing
  if (verb == "POST" && !p.name.empty()) return reply(201, body);  // subresource actions
  if (verb == "POST") {
    json& meta = body["metadata"];
    if (!meta.is_object()) meta = json::object();
    if (!meta.contains("name"))
      meta["name"] = meta.value("generateName", "") + std::to_string(revision_);
    if (!p.ns.empty()) meta["namespace"] = p.ns;
    const std::string path = p.collection() + "/" + meta.value("name", "");
    if (objects_.count(path)) {
      return reply(409, {{"kind", "Status"}, {"reason", "AlreadyExists"}, {"code", 409}});
    }
    meta["uid"] = "uid-" + meta.value("name", "");
    if (dry_run) return reply(201, body);  // nothing stored
    meta["resourceVersion"] = std::to_string(++revision_);
    objects_[path] = body;
    notify("ADDED", p.collection(), body);
    return reply(201, body);
  }
  if (it == objects_.end()) return not_found(p.object());
  json& stored = it->second;
  if (verb == "DELETE") {
    json gone = stored;
    objects_.erase(it);
    notify("DELETED", p.collection(), gone);
    return reply(200, gone);
  }
  // A resourceVersion in the body is a precondition, as in the apiserver.
  const std::string wanted =
      body.is_object() ? body.value("metadata", json::object()).value("resourceVersion", "") : "";
  if ((verb == "PUT" || verb == "PATCH") && !wanted.empty() &&
      wanted != stored["metadata"].value("resourceVersion", "")) {
    return reply(409, {{"kind", "Status"}, {"reason", "Conflict"}, {"code", 409}});
  }
  if (verb == "PUT") {
    if (p.subresource == "status") {
      stored["status"] = body.value("status", json());
    } else {
      body["status"] = stored.value("status", json());
      stored = body;
    }
  } else if (verb == "PATCH") {
    auto meta_it = body.is_object() ? body.find("metadata") : body.end();
    if (meta_it != body.end() && meta_it->is_object()) {
      json& meta = *meta_it;
      // Strategic merge's "$deleteFromPrimitiveList/<list>": those values leave the list.
      for (auto m = meta.begin(); m != meta.end();) {
        const std::string directive = "$deleteFromPrimitiveList/";
        if (m.key().rfind(directive, 0) != 0) {
          ++m;
          continue;
        }
        json& list = stored["metadata"][m.key().substr(directive.size())];
        if (list.is_array()) {
          json kept = json::array();
          for (const json& v : list)
            if (std::find(m->begin(), m->end(), v) == m->end()) kept.push_back(v);
          list = std::move(kept);
        }
        m = meta.erase(m);
      }
    }
    stored.merge_patch(body);
  } else {
    return reply(405, json::object());
  }
  stored["metadata"]["resourceVersion"] = std::to_string(++revision_);
  notify("MODIFIED", p.collection(), stored);
  return reply(200, stored);
}

}  // namespace k3c::controllers::testing
