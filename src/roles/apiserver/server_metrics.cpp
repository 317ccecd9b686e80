// The /metrics document (see server_metrics.h).
#include "roles/apiserver/server_metrics.h"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "core/go_format.h"
#include "core/log.h"
#include "core/proc_text.h"
#include "core/prometheus_text.h"

namespace k3c::apiserver {
namespace {

void sample(std::string& out, const char* name, double value) {
  out += std::string(name) + " " + go_float(value) + "\n";
}

void build_info(std::string& out, const api::VersionInfo& version) {
  auto doc = api::version_document(version);
  if (!doc.is_ok()) return;  // start-up refuses such a version before anything is served
  prometheus_family(out, "kubernetes_build_info", "gauge",
                    "The server's version, as /version answers it, in labels; the value is 1");
  std::string labels;
  // Label names in order, each from its /version field.
  for (const auto& [label, field] :
       std::vector<std::pair<const char*, const char*>>{{"build_date", "buildDate"},
                                                        {"compiler", "compiler"},
                                                        {"git_commit", "gitCommit"},
                                                        {"git_tree_state", "gitTreeState"},
                                                        {"git_version", "gitVersion"},
                                                        {"go_version", "goVersion"},
                                                        {"major", "major"},
                                                        {"minor", "minor"},
                                                        {"platform", "platform"}}) {
    if (!labels.empty()) labels += ",";
    labels += std::string(label) + "=\"" + prometheus_escaped(doc->value(field, "")) + "\"";
  }
  out += "kubernetes_build_info{" + labels + "} 1\n";
}

// The resources whose objects are stored, one per store prefix (core events and
// events.k8s.io events share one), named as upstream names them: "pods", "deployments.apps".
std::vector<std::pair<std::string, std::string>> stored_resources(
    const api::ResourceRegistry& registry) {
  std::set<std::string> prefixes;
  std::vector<std::pair<std::string, std::string>> out;
  for (const api::Resource& r : registry.resources()) {
    if (!r.stored() || !prefixes.insert(r.storage_prefix).second) continue;
    out.emplace_back(r.group.empty() ? r.plural : r.plural + "." + r.group, r.storage_prefix);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void storage_objects(std::string& out, const api::ResourceRegistry& registry, store::Store& store) {
  prometheus_family(out, "apiserver_storage_objects", "gauge",
                    "Objects stored per resource, counted in the datastore when scraped");
  for (const auto& [name, prefix] : stored_resources(registry)) {
    auto n = store.count(prefix + "/");
    if (!n.is_ok()) {
      // A series that is missing says "unknown"; a made-up value would not.
      log::for_role("apiserver")->warn("metrics: counting {}: {}", prefix, n.status().message());
      continue;
    }
    out += "apiserver_storage_objects{resource=\"" + prometheus_escaped(name) + "\"} " +
           std::to_string(*n) + "\n";
  }
}

// Fields of /proc/self/stat after the command name (which may hold spaces): index 0 is the
// state (field 3 of proc(5)).
std::vector<std::string> proc_stat_fields() {
  std::ifstream in("/proc/self/stat");
  std::string line;
  std::getline(in, line);
  std::vector<std::string> fields;
  const size_t close = line.rfind(')');
  if (close == std::string::npos) return fields;
  std::istringstream rest(line.substr(close + 1));
  for (std::string f; rest >> f;) fields.push_back(f);
  return fields;
}

// When this process started, in seconds since the epoch: proc(5)'s starttime (field 22 of
// /proc/self/stat, in clock ticks after boot) after /proc/stat's boot time; 0 when unknown.
double process_start_time() {
  const auto fields = proc_stat_fields();
  std::ifstream in("/proc/stat");
  std::stringstream stat;
  stat << in.rdbuf();
  auto boot = proc_stat_boot_time(stat.str());
  if (fields.size() <= 19 || !boot.is_ok()) return 0;
  return static_cast<double>(*boot) +
         std::stod(fields[19]) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

int open_fds() {
  DIR* dir = opendir("/proc/self/fd");
  if (!dir) return -1;
  int n = 0;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] != '.') ++n;
  }
  closedir(dir);
  return n - 1;  // the directory stream's own descriptor
}

void process(std::string& out, double start_time) {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const double cpu = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                     static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  prometheus_family(out, "process_cpu_seconds_total", "counter",
                    "CPU time the process has used, user and system, in seconds");
  sample(out, "process_cpu_seconds_total", cpu);

  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) == 0) {
    prometheus_family(out, "process_max_fds", "gauge", "The limit on open file descriptors");
    sample(out, "process_max_fds", static_cast<double>(files.rlim_cur));
  }
  if (int fds = open_fds(); fds >= 0) {
    prometheus_family(out, "process_open_fds", "gauge", "Open file descriptors");
    sample(out, "process_open_fds", fds);
  }

  // proc(5): vsize is field 23 and rss (pages) field 24. Families go in name order, so the
  // start time sits between the two.
  const auto fields = proc_stat_fields();
  if (fields.size() > 21) {
    const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
    prometheus_family(out, "process_resident_memory_bytes", "gauge", "Resident memory, in bytes");
    sample(out, "process_resident_memory_bytes", std::stod(fields[21]) * page);
  }
  if (start_time > 0) {
    prometheus_family(out, "process_start_time_seconds", "gauge",
                      "When the process started, in seconds since the Unix epoch");
    sample(out, "process_start_time_seconds", start_time);
  }
  if (fields.size() > 21) {
    prometheus_family(out, "process_virtual_memory_bytes", "gauge", "Virtual memory, in bytes");
    sample(out, "process_virtual_memory_bytes", std::stod(fields[20]));
  }
}

}  // namespace

ServerMetrics::ServerMetrics(std::shared_ptr<RequestMetrics> requests, store::Store& store,
                             api::VersionInfo version)
    : requests_(std::move(requests)),
      store_(store),
      version_(std::move(version)),
      start_time_(process_start_time()) {}

std::string ServerMetrics::text(const api::ResourceRegistry& registry) const {
  std::string out;
  requests_->write(out);
  storage_objects(out, registry, store_);
  build_info(out, version_);
  process(out, start_time_);
  return out;
}

}  // namespace k3c::apiserver
