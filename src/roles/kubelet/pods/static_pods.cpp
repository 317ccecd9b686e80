// Static pods from manifest files (see static_pods.h).
#include "roles/kubelet/pods/static_pods.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "api/json_fields.h"
#include "api/strict_json.h"
#include "api/validation.h"
#include "core/ids.h"
#include "core/log.h"
#include "core/names.h"
#include "core/yaml_json.h"
#include "runtime/digest.h"

namespace k3c::kubelet {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr uintmax_t kMaxManifestBytes = 1 << 20;  // a pod manifest is small; refuse more

std::string key_of(const json& pod) {
  const json& m = pod["metadata"];
  return m.value("namespace", "") + "/" + m.value("name", "");
}

std::string static_uid(const json& pod) { return pod["metadata"].value("uid", ""); }

// Upstream's ValidateObjectMeta for a Pod: the name a DNS subdomain, the namespace a DNS
// label, labels and annotations qualified keys (labels with valid values).
api::FieldErrors metadata_errors(const json& meta) {
  api::FieldErrors errors;
  const std::string name = api::text(meta, "name");
  for (const auto& why : names::dns1123_subdomain_problems(name))
    errors.push_back(api::invalid("metadata.name", name, why));
  const std::string ns = api::text(meta, "namespace");
  for (const auto& why : names::dns1123_label_problems(ns))
    errors.push_back(api::invalid("metadata.namespace", ns, why));
  for (const char* field : {"labels", "annotations"}) {
    const json& map = api::member(meta, field);
    const std::string path = std::string("metadata.") + field;
    if (!map.is_object()) {
      if (!map.is_null()) errors.push_back(api::invalid(path, map, "must be a map of strings"));
      continue;
    }
    for (const auto& [key, value] : map.items()) {
      for (const auto& why : names::qualified_name_problems(key))
        errors.push_back(api::invalid(path, key, why));
      if (!value.is_string()) {
        errors.push_back(api::invalid(api::key(path, key), value, "must be a string"));
      } else if (std::string_view(field) == "labels") {
        for (const auto& why : names::label_value_problems(value.get<std::string>()))
          errors.push_back(api::invalid(api::key(path, key), value, why));
      }
    }
  }
  return errors;
}

}  // namespace

Result<json> default_and_validate_pod(json pod, const api::SchemaSet& schemas) {
  const api::MessageType* type = schemas.kind({"", "v1", "Pod"});
  if (type == nullptr) return error(Code::kInternal, "the schemas describe no v1 Pod");
  // Upstream's decoder refuses a value of the wrong JSON type before anything is defaulted.
  if (auto wrong = api::type_mismatch(pod, *type)) return error(Code::kInvalid, *wrong);
  api::apply_defaults(pod, *type);
  api::FieldErrors errors = metadata_errors(api::member(pod, "metadata"));
  for (api::FieldError& e : api::validate(pod, nullptr, *type)) errors.push_back(std::move(e));
  if (errors.empty()) return pod;
  // As upstream prints its field.ErrorList: "invalid pod: [a: Required value b: ...]".
  std::string listed;
  for (const api::FieldError& e : errors)
    listed += (listed.empty() ? "" : " ") + e.field + ": " + e.body();
  return error(Code::kInvalid, "invalid pod: [" + listed + "]");
}

StaticPodSource::StaticPodSource(std::string directory, std::string node_name, const Clock& clock)
    : directory_(std::move(directory)), node_name_(std::move(node_name)), clock_(clock) {}

Result<json> StaticPodSource::load(const std::string& path, const std::string& content) const {
  auto parsed = yaml_to_json(content);
  if (!parsed.is_ok()) return error(Code::kInvalid, parsed.status().message());
  json pod = std::move(*parsed);
  if (!pod.is_object() || pod.value("kind", "") != "Pod" || pod.value("apiVersion", "") != "v1")
    return error(Code::kInvalid, "the manifest is not a v1 Pod");
  json& meta = pod["metadata"];
  if (!meta.is_object() || api::text(meta, "name").empty())
    return error(Code::kInvalid, "invalid pod: name is needed for the pod");
  // The uid: a hash of what defines this pod here (upstream hashes the decoded pod; the
  // file's bytes serve the same purpose: same file, same node, same path, same uid).
  std::string hash = runtime::sha256_of(content + "host:" + node_name_ + "file:" + path);
  meta["uid"] = std::string(runtime::digest_hex(hash).substr(0, 32));
  meta["name"] = api::text(meta, "name") + "-" + node_name_;
  if (api::text(meta, "namespace").empty()) meta["namespace"] = "default";
  meta.erase("resourceVersion");
  meta.erase("generateName");
  if (!meta["annotations"].is_object()) meta["annotations"] = json::object();
  meta["annotations"][kConfigHashAnnotation] = meta["uid"];
  meta["annotations"][kConfigSourceAnnotation] = "file";
  meta["annotations"][kConfigSeenAnnotation] = rfc3339_micro(clock_.wall_now());
  meta["creationTimestamp"] = rfc3339(clock_.wall_now());
  if (!pod["spec"].is_object()) return error(Code::kInvalid, "invalid pod: [spec: Required value]");
  pod["spec"]["nodeName"] = node_name_;
  // Static pods tolerate every NoExecute taint, so node problems never evict them.
  json& tolerations = pod["spec"]["tolerations"];
  if (tolerations.is_null()) tolerations = json::array();
  const json everything = {{"operator", "Exists"}, {"effect", "NoExecute"}};
  if (tolerations.is_array() &&
      std::find(tolerations.begin(), tolerations.end(), everything) == tolerations.end())
    tolerations.push_back(everything);
  pod.erase("status");  // what the file says of a status is not this pod's
  if (!schemas_) {
    auto loaded = api::SchemaSet::builtin();
    if (!loaded.is_ok()) return loaded.status();
    schemas_ = std::move(*loaded);
  }
  ASSIGN_OR_RETURN(pod, default_and_validate_pod(std::move(pod), *schemas_));
  pod["status"] = {{"phase", "Pending"}};
  return pod;
}

json StaticPodSource::terminating_copy(const json& pod) const {
  json copy = pod;
  int64_t grace = 30;
  if (auto g = copy["spec"].find("terminationGracePeriodSeconds");
      g != copy["spec"].end() && g->is_number_integer())
    grace = g->get<int64_t>();
  copy["metadata"]["deletionTimestamp"] = rfc3339(clock_.wall_now());
  copy["metadata"]["deletionGracePeriodSeconds"] = grace;
  return copy;
}

std::vector<std::string> StaticPodSource::scan() {
  auto logger = log::for_role("kubelet");
  std::vector<std::string> paths;
  std::error_code ec;
  for (fs::directory_iterator it(directory_, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    std::error_code type_error;
    if (!it->is_regular_file(type_error)) continue;
    paths.push_back(it->path().string());
  }
  std::sort(paths.begin(), paths.end());

  std::lock_guard lock(mu_);
  // The pods the files describe now, by key (the first file wins on a duplicate name).
  struct Found {
    json pod;
    std::string file, fingerprint;
  };
  std::map<std::string, Found> desired;
  for (const std::string& path : paths) {
    std::error_code size_error;
    const uintmax_t size = fs::file_size(path, size_error);
    if (size_error || size > kMaxManifestBytes) {
      logger->warn("static pod manifest {}: {}", path,
                   size_error ? size_error.message() : "larger than 1 MiB; skipped");
      continue;
    }
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    const std::string content = text.str();
    const std::string fingerprint = runtime::sha256_of(content);
    // An unchanged file keeps its pod: no new decode, no new uid.
    std::optional<json> pod;
    for (const auto& [key, entry] : entries_) {
      if (entry.file == path && entry.fingerprint == fingerprint && entry.pod) pod = *entry.pod;
    }
    if (!pod) {
      auto loaded = load(path, content);
      if (!loaded.is_ok()) {
        logger->warn("could not process static pod manifest {}: {}", path,
                     loaded.status().message());
        continue;
      }
      pod = std::move(*loaded);
    }
    const std::string key = key_of(*pod);
    if (auto other = desired.find(key); other != desired.end()) {
      logger->warn("static pod manifest {}: pod {} is already defined in {}; skipped", path, key,
                   other->second.file);
      continue;
    }
    desired[key] = {std::move(*pod), path, fingerprint};
  }

  std::vector<std::string> changed;
  // Pods whose file went or now describes another pod terminate first.
  for (auto& [key, entry] : entries_) {
    if (!entry.pod) continue;
    auto want = desired.find(key);
    if (want == desired.end() || static_uid(want->second.pod) != static_uid(*entry.pod)) {
      entry.terminating.push_back(terminating_copy(*entry.pod));
      entry.pod.reset();
      changed.push_back(key);
    }
  }
  for (auto& [key, found] : desired) {
    Entry& entry = entries_[key];
    entry.file = found.file;
    entry.fingerprint = found.fingerprint;
    if (entry.pod) continue;  // the same pod as before
    entry.pod = std::move(found.pod);
    if (std::find(changed.begin(), changed.end(), key) == changed.end()) changed.push_back(key);
  }
  std::erase_if(entries_,
                [](const auto& kv) { return !kv.second.pod && kv.second.terminating.empty(); });
  return changed;
}

std::optional<json> StaticPodSource::current(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  if (!it->second.terminating.empty()) return it->second.terminating.front();
  return it->second.pod;
}

void StaticPodSource::terminated(const std::string& key, const std::string& uid) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return;
  std::erase_if(it->second.terminating, [&](const json& p) { return static_uid(p) == uid; });
  if (!it->second.pod && it->second.terminating.empty()) entries_.erase(it);
}

std::map<std::string, std::string> StaticPodSource::uids() const {
  std::lock_guard lock(mu_);
  std::map<std::string, std::string> out;
  for (const auto& [key, entry] : entries_) {
    if (entry.pod) out[static_uid(*entry.pod)] = key;
    for (const json& p : entry.terminating) out[static_uid(p)] = key;
  }
  return out;
}

std::optional<json> StaticPodSource::desired_mirror(const std::string& key) const {
  std::lock_guard lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  return it->second.pod;
}

}  // namespace k3c::kubelet
