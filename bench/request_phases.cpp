// Phases 2 and 4: request rates from many concurrent keep-alive clients. GET /version is the
// floor (TLS, HTTP parsing, routing, no store); GET of one ConfigMap reads the watch cache;
// ConfigMap creates are durable writes (the default --datastore-sync full: one fsync per
// group commit). Every figure is a median over repetitions; errors are counted, never hidden.
#include <sys/resource.h>

#include "api_phases.h"

namespace k3c::bench {
namespace {

constexpr double kSecondsPerRep = 5;
constexpr int kGetClients = 16;
constexpr int kCreateClients[] = {32, 64};
const std::string kConfigMaps = "/api/v1/namespaces/default/configmaps";

std::string config_map(const std::string& name) {
  return R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + name +
         R"("},"data":{"key":"value"}})";
}

// Repetitions of one load, accumulated.
struct LoadReps {
  LoadFigures figures;
  std::vector<Latency> latencies;
  double server_cpu = 0, client_cpu = 0;
  int64_t answered = 0;
  std::string first_error;

  void run(const ApiBenchEnv& env, BenchServer& server, const RequestMaker& make) {
    LoadOptions options;
    options.clients = figures.clients;
    options.duration = env.scaled(kSecondsPerRep);
    options.threads = env.client_threads;
    const double server_cpu0 = server.cpu_seconds(), client_cpu0 = self_cpu_seconds();
    LoadResult r = server.client().run_load(options, make);
    server_cpu += server.cpu_seconds() - server_cpu0;
    client_cpu += self_cpu_seconds() - client_cpu0;
    answered += r.answered;
    figures.rate.reps.push_back(r.rate());
    latencies.push_back(summarize(std::move(r.latency_ns)));
    figures.errors += r.errors();
    if (first_error.empty() && r.errors() > 0) first_error = errors_text(r);
  }

  LoadFigures finish() {
    figures.rate.median = median(figures.rate.reps);
    figures.latency = combine(latencies);
    if (answered > 0) {
      figures.server_cpu_us = server_cpu / static_cast<double>(answered) * 1e6;
      figures.client_cpu_us = client_cpu / static_cast<double>(answered) * 1e6;
    }
    return figures;
  }

  void print(const std::string& name, const char* unit) const {
    print_figure(name, to_string(figures.rate, unit));
    print_figure("  latency", to_string(figures.latency));
    print_figure("  CPU per request: server / this client",
                 format("%.0f / %.0f us", figures.server_cpu_us, figures.client_cpu_us));
    print_figure("  errors", figures.errors == 0 ? "0" : first_error);
  }
};

LoadFigures measure(const ApiBenchEnv& env, BenchServer& server, int clients,
                    const std::string& name, const char* unit, const RequestMaker& make) {
  LoadReps reps;
  reps.figures.clients = clients;
  for (int rep = 0; rep < env.reps; ++rep) reps.run(env, server, make);
  LoadFigures out = reps.finish();
  reps.print(name, unit);
  return out;
}

}  // namespace

double self_cpu_seconds() {
  rusage use{};
  getrusage(RUSAGE_SELF, &use);
  auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return s(use.ru_utime) + s(use.ru_stime);
}

std::string errors_text(const LoadResult& r) {
  if (r.errors() == 0) return "0";
  std::string out = format("%lld (", static_cast<long long>(r.errors()));
  for (const auto& [code, count] : r.non_2xx) {
    out += format("HTTP %d x%lld, ", code, static_cast<long long>(count));
  }
  if (r.transport_errors > 0) {
    out += format("transport x%lld, ", static_cast<long long>(r.transport_errors));
  }
  return out + "first: " + r.first_error.substr(0, 200) + ")";
}

Result<GetFigures> run_gets(const ApiBenchEnv& env, BenchServer& server) {
  print_heading(format("2. GETs, %d keep-alive clients, %.1f s x %d reps", kGetClients,
                       kSecondsPerRep * env.scale, env.reps));
  ASSIGN_OR_RETURN(auto conn, server.client().connect());
  ASSIGN_OR_RETURN(Answer created, conn->request("POST", kConfigMaps, config_map("bench-get")));
  if (created.status != 201) {
    return error(Code::kInternal, format("creating bench-get: HTTP %d ", created.status) +
                                      created.body.substr(0, 300));
  }
  GetFigures out;
  out.version =
      measure(env, server, kGetClients, "GET /version (floor)", "gets/s", [](int, int64_t) {
        return RequestSpec{"GET", "/version", ""};
      });
  out.object = measure(env, server, kGetClients, "GET one ConfigMap", "gets/s", [](int, int64_t) {
    return RequestSpec{"GET", kConfigMaps + "/bench-get", ""};
  });
  return out;
}

Result<std::vector<LoadFigures>> run_creates(const ApiBenchEnv& env, BenchServer& server) {
  print_heading(
      format("4. Durable ConfigMap creates (JSON, ~100 bytes); %d rounds of "
             "[32, 64 clients], %.1f s each",
             env.reps, kSecondsPerRep * env.scale));
  // Rounds (32, 64, then again), so both client counts see the same disk: fsync latency
  // drifts on a shared machine.
  std::vector<LoadReps> reps(std::size(kCreateClients));
  for (int rep = 0; rep < env.reps; ++rep) {
    for (size_t i = 0; i < reps.size(); ++i) {
      const int clients = kCreateClients[i];
      reps[i].figures.clients = clients;
      const std::string prefix = format("cm-%d-%d-", rep, clients);
      reps[i].run(env, server, [&prefix](int, int64_t n) {
        return RequestSpec{"POST", kConfigMaps, config_map(prefix + std::to_string(n))};
      });
    }
  }
  std::vector<LoadFigures> out;
  for (LoadReps& r : reps) {
    out.push_back(r.finish());
    r.print(format("%d clients", r.figures.clients), "creates/s");
  }
  return out;
}

}  // namespace k3c::bench
