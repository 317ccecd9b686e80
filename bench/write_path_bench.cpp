// The write path benchmark: what the API server spends on each write a pod of a Deployment
// costs it on its way to Running (doc/benchmarks.md, "The write path benchmark"). The API
// server runs in this process on a durable store in a temporary directory, called through
// its in-process handler (as the controllers and the scheduler call it): the pod's create as
// the ReplicaSet controller sends it, its binding as the scheduler's, its status patch as the
// (hollow) kubelet's. Each phase prints the process's CPU per write (the handler, the store's
// commits, the watch cache) and writes per second, with the same pods written straight into
// the store as the reference.
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "bench_report.h"
#include "client/client.h"
#include "client/in_process_client.h"
#include "roles/apiserver/api_server.h"
#include "store/store.h"
#include "temp_dir.h"

namespace k3c::bench {
namespace {

using nlohmann::json;

double process_cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

struct PhaseResult {
  double cpu_us_per_write = 0;
  double writes_per_second = 0;
};

// One phase's results over the repetitions.
struct Series {
  std::vector<double> cpu, rate;
  void add(const PhaseResult& r) {
    cpu.push_back(r.cpu_us_per_write);
    rate.push_back(r.writes_per_second);
  }
};

// Runs `write(i)` for i in [0, count) from `threads` threads and measures it.
PhaseResult run_phase(int count, int threads, const std::function<bool(int)>& write) {
  std::atomic<int> next{0};
  std::atomic<int> failed{0};
  const double cpu0 = process_cpu_seconds();
  const auto t0 = SteadyClock::now();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      for (int i = next++; i < count; i = next++) {
        if (!write(i)) ++failed;
      }
    });
  }
  for (auto& t : pool) t.join();
  const double wall = std::chrono::duration<double>(SteadyClock::now() - t0).count();
  const double cpu = process_cpu_seconds() - cpu0;
  if (failed > 0) std::fprintf(stderr, "  %d writes failed\n", failed.load());
  return {cpu * 1e6 / count, count / wall};
}

// The pod the ReplicaSet controller creates from a Deployment's template.
json replica_pod(const std::string& ns) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"generateName", "web-6c8d9878b5-"},
            {"namespace", ns},
            {"labels", {{"app", "web"}, {"pod-template-hash", "6c8d9878b5"}}},
            {"ownerReferences",
             {{{"apiVersion", "apps/v1"},
               {"kind", "ReplicaSet"},
               {"name", "web-6c8d9878b5"},
               {"uid", "9644475a-39e5-44b4-adc6-f58de2bfc81e"},
               {"controller", true},
               {"blockOwnerDeletion", true}}}}}},
          {"spec",
           {{"containers",
             {{{"name", "app"},
               {"image", "registry.example/bench:1"},
               {"resources", {{"requests", {{"cpu", "10m"}, {"memory", "16Mi"}}}}}}}}}}};
}

// The status a kubelet reports once the pod runs, as a merge patch with the uid precondition.
json running_status_patch(const std::string& uid, int i) {
  const std::string now = "2026-12-05T05:43:26Z";
  const std::string node_ip = "172.16." + std::to_string(i / 250 % 250) + "." + std::to_string(i % 250 + 1);
  const std::string pod_ip = "10.42." + std::to_string(i / 250 % 250) + "." + std::to_string(i % 250 + 2);
  json conditions = json::array();
  for (const char* type : {"PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady"}) {
    conditions.push_back({{"type", type},
                          {"status", "True"},
                          {"lastProbeTime", nullptr},
                          {"lastTransitionTime", now}});
  }
  return {{"metadata", {{"uid", uid}}},
          {"status",
           {{"conditions", conditions},
            {"containerStatuses",
             {{{"name", "app"},
               {"image", "registry.example/bench:1"},
               {"imageID", "sha256:94b405571be7b6240ca556def4ff2399e0f9d0ebf17c21f604215b733d2a423b"},
               {"containerID", "k3c://" + std::string(64, 'a')},
               {"ready", true},
               {"started", true},
               {"restartCount", 0},
               {"lastState", json::object()},
               {"state", {{"running", {{"startedAt", now}}}}}}}},
            {"hostIP", node_ip},
            {"hostIPs", {{{"ip", node_ip}}}},
            {"podIP", pod_ip},
            {"podIPs", {{{"ip", pod_ip}}}},
            {"phase", "Running"},
            {"startTime", now}}}};
}

struct Options {
  int pods = 2000;
  int threads = 8;
  int reps = 3;
};

int run(const Options& o) {
  TempDir dir;
  store::Options so;
  so.path = dir.path() + "/state.db";
  auto opened = store::open(so);
  if (!opened.is_ok()) {
    std::fprintf(stderr, "store: %s\n", opened.status().to_string().c_str());
    return 1;
  }
  std::unique_ptr<store::Store> db = std::move(opened).value();
  apiserver::ApiServerConfig a;
  a.tls_dir = dir.path() + "/tls";
  a.token_path = dir.path() + "/token";
  a.bind_address = "127.0.0.1";
  a.port = 0;
  apiserver::ApiServerRole server(a, [&] { return db.get(); });
  if (Status s = server.start(); !s.is_ok()) {
    std::fprintf(stderr, "apiserver: %s\n", s.to_string().c_str());
    return 1;
  }
  http::PeerIdentity admin;
  admin.user = "system:admin";
  admin.groups = {"system:masters", "system:authenticated"};
  client::InProcessClient api([&](http::Request& r) { return server.handle(r); }, admin);
  auto call = [&](std::string_view method, const std::string& target, const json& body,
                  std::string_view type = "application/json") -> std::optional<json> {
    auto reply = api.request(method, target, body.dump(), type);
    if (!reply.is_ok() || reply->status / 100 != 2) {
      std::fprintf(stderr, "%.*s %s: %s\n", static_cast<int>(method.size()), method.data(),
                   target.c_str(),
                   reply.is_ok() ? reply->body.substr(0, 300).c_str()
                                 : reply.status().to_string().c_str());
      return std::nullopt;
    }
    return json::parse(reply->body, nullptr, false);
  };

  std::printf("k3c write path benchmark: %d pods per repetition, %d writers, %d repetitions\n",
              o.pods, o.threads, o.reps);
  Series creates, binds, statuses, references;
  for (int rep = 0; rep < o.reps; ++rep) {
    const std::string ns = "bench-" + std::to_string(rep);
    if (!call("POST", "/api/v1/namespaces",
              {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}}) ||
        !call("POST", "/api/v1/namespaces/" + ns + "/serviceaccounts",
              {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", "default"}}}}))
      return 1;
    std::vector<std::string> names(o.pods), uids(o.pods);
    const std::string pods = "/api/v1/namespaces/" + ns + "/pods";
    const json pod = replica_pod(ns);
    PhaseResult create = run_phase(o.pods, o.threads, [&](int i) {
      auto made = call("POST", pods, pod);
      if (!made) return false;
      names[i] = (*made)["metadata"]["name"];
      uids[i] = (*made)["metadata"]["uid"];
      return true;
    });
    PhaseResult bind = run_phase(o.pods, o.threads, [&](int i) {
      json binding = {{"apiVersion", "v1"},
                      {"kind", "Binding"},
                      {"metadata", {{"name", names[i]}}},
                      {"target", {{"apiVersion", "v1"}, {"kind", "Node"}, {"name", "hollow-" + std::to_string(i % 1000)}}}};
      return call("POST", pods + "/" + names[i] + "/binding", binding).has_value();
    });
    PhaseResult status = run_phase(o.pods, o.threads, [&](int i) {
      return call("PATCH", pods + "/" + names[i] + "/status", running_status_patch(uids[i], i),
                  "application/merge-patch+json")
          .has_value();
    });
    // The reference: the final pods' bytes written straight into the store, new keys.
    std::vector<std::string> finals(o.pods);
    for (int i = 0; i < o.pods; ++i) {
      auto got = api.request("GET", pods + "/" + names[i], "", "");
      finals[i] = got.is_ok() ? got->body : "{}";
    }
    PhaseResult ref = run_phase(o.pods, o.threads, [&](int i) {
      return db->create("/bench-reference/" + ns + "/" + names[i], finals[i]).is_ok();
    });
    std::printf(
        "  rep %d: create %.0f µs CPU (%.0f/s) | bind %.0f µs (%.0f/s) | status patch %.0f µs "
        "(%.0f/s) | store create alone %.0f µs (%.0f/s)\n",
        rep + 1, create.cpu_us_per_write, create.writes_per_second, bind.cpu_us_per_write,
        bind.writes_per_second, status.cpu_us_per_write, status.writes_per_second,
        ref.cpu_us_per_write, ref.writes_per_second);
    creates.add(create);
    binds.add(bind);
    statuses.add(status);
    references.add(ref);
  }
  const double ref = median(references.cpu);
  print_heading("medians: process CPU per write (API server, store, watch cache) and ratio to a "
                "store create of the same bytes");
  auto line = [&](const char* name, const Series& s) {
    print_figure(name, format("%.0f µs CPU, %.2fx the store alone, %.0f writes/s", median(s.cpu),
                              median(s.cpu) / ref, median(s.rate)));
  };
  line("pod create (ReplicaSet controller's)", creates);
  line("pods/binding (scheduler's)", binds);
  line("pods/status merge patch (kubelet's)", statuses);
  line("store create alone (reference)", references);
  const double per_pod = median(creates.cpu) + median(binds.cpu) + median(statuses.cpu);
  print_figure("the three writes of one pod", format("%.0f µs CPU", per_pod));
  server.stop();
  return 0;
}

}  // namespace
}  // namespace k3c::bench

int main(int argc, char** argv) {
  k3c::bench::Options o;
  CLI::App app{"k3c write path benchmark: the API server's CPU per write of a pod's life"};
  app.add_option("--pods", o.pods, "pods per repetition")->check(CLI::Range(10, 100000));
  app.add_option("--threads", o.threads, "writers at once")->check(CLI::Range(1, 64));
  app.add_option("--reps", o.reps, "repetitions")->check(CLI::Range(1, 20));
  CLI11_PARSE(app, argc, argv);
  return k3c::bench::run(o);
}
