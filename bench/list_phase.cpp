// Phase 3: full LISTs. Fills namespace bench1k with exactly 1,000 pods and default with
// 10,000 (minimal Pod objects; nothing runs them), then times GET .../pods (JSON, no limit)
// on one keep-alive connection, and reads the server's RSS holding them.
#include <nlohmann/json.hpp>

#include "api_phases.h"

namespace k3c::bench {
namespace {

constexpr int kTimedLists = 10;
constexpr int kFillClients = 64;
constexpr auto kFillBudget = std::chrono::seconds(90);

std::string pod(int64_t n) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p-)" + std::to_string(n) +
         R"(","labels":{"app":"bench"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}})";
}

// Creates pods p-0 .. p-(count-1) in `ns`: bounded by count and by kFillBudget.
LoadResult fill(BenchServer& server, const ApiBenchEnv& env, const std::string& ns, int64_t count) {
  LoadOptions options;
  options.clients = kFillClients;
  options.duration = kFillBudget;
  options.max_requests = count;
  options.threads = env.client_threads;
  const std::string target = "/api/v1/namespaces/" + ns + "/pods";
  return server.client().run_load(options, [&](int, int64_t n) {
    return RequestSpec{"POST", target, pod(n)};
  });
}

// A pod needs its namespace's default ServiceAccount (the ServiceAccount admission plugin
// refuses it otherwise). The controller manager makes it soon after the namespace appears;
// making it here keeps that wait out of the timed fill and lets the phase run on a server
// without a controller manager. AlreadyExists is fine.
Status ensure_default_account(ApiConnection& conn, const std::string& ns) {
  ASSIGN_OR_RETURN(Answer a, conn.request("POST", "/api/v1/namespaces/" + ns + "/serviceaccounts",
                                          R"({"apiVersion":"v1","kind":"ServiceAccount",)"
                                          R"("metadata":{"name":"default"}})"));
  if (a.status != 201 && a.status != 409)
    return error(Code::kInternal,
                 format("default serviceaccount in %s: HTTP %d", ns.c_str(), a.status));
  return Status::ok();
}

struct ListTiming {
  double median_ms = 0;
  size_t items = 0;
  size_t bytes = 0;
};

// One untimed LIST (checks the answer, warms up), then kTimedLists timed ones.
Result<ListTiming> time_lists(ApiConnection& conn, const std::string& ns) {
  const std::string target = "/api/v1/namespaces/" + ns + "/pods";
  ASSIGN_OR_RETURN(Answer first, conn.request("GET", target));
  if (first.status != 200) return error(Code::kInternal, format("LIST: HTTP %d", first.status));
  ListTiming out;
  out.bytes = first.body.size();
  auto parsed = nlohmann::json::parse(first.body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !parsed["items"].is_array()) {
    return error(Code::kInternal, "LIST answer is not a list");
  }
  out.items = parsed["items"].size();
  std::vector<double> ms;
  for (int i = 0; i < kTimedLists; ++i) {
    const int64_t start = now_ns();
    ASSIGN_OR_RETURN(Answer a, conn.request("GET", target));
    ms.push_back(static_cast<double>(now_ns() - start) / 1e6);
    if (a.status != 200) return error(Code::kInternal, format("LIST: HTTP %d", a.status));
  }
  out.median_ms = median(ms);
  return out;
}

}  // namespace

Result<ListFigures> run_lists(const ApiBenchEnv& env, BenchServer& server) {
  print_heading(
      format("3. LIST of 1,000 and of 10,000 pods (JSON, no limit), median of %d", kTimedLists));
  ListFigures out;
  out.rss_before_mb = static_cast<double>(server.rss_bytes()) / 1e6;
  ASSIGN_OR_RETURN(auto conn, server.client().connect());
  ASSIGN_OR_RETURN(Answer ns, conn->request("POST", "/api/v1/namespaces",
                                            R"({"apiVersion":"v1","kind":"Namespace",)"
                                            R"("metadata":{"name":"bench1k"}})"));
  if (ns.status != 201) return error(Code::kInternal, format("namespace: HTTP %d", ns.status));
  for (const char* name : {"bench1k", "default"})
    RETURN_IF_ERROR(ensure_default_account(*conn, name));
  LoadResult small = fill(server, env, "bench1k", 1000);
  LoadResult large = fill(server, env, "default", 10000);
  out.create_per_s = static_cast<double>(small.ok + large.ok) / (small.seconds + large.seconds);
  out.create_errors = small.errors() + large.errors();
  print_figure(
      "pods created (64 clients)",
      format("%lld + %lld in %.1f s = %.0f creates/s", static_cast<long long>(small.ok),
             static_cast<long long>(large.ok), small.seconds + large.seconds, out.create_per_s));
  print_figure("  errors", errors_text(small.errors() ? small : large));

  ASSIGN_OR_RETURN(ListTiming t1k, time_lists(*conn, "bench1k"));
  ASSIGN_OR_RETURN(ListTiming t10k, time_lists(*conn, "default"));
  out.items_1k = t1k.items;
  out.items_10k = t10k.items;
  out.list_1k_ms = t1k.median_ms;
  out.list_10k_ms = t10k.median_ms;
  out.bytes_10k = static_cast<double>(t10k.bytes);
  print_figure(format("LIST bench1k (%zu pods, %.0f KB)", t1k.items, t1k.bytes / 1e3),
               format("%.1f ms", t1k.median_ms));
  print_figure(format("LIST default (%zu pods, %.1f MB)", t10k.items, t10k.bytes / 1e6),
               format("%.1f ms = %.1f us/pod", t10k.median_ms,
                      t10k.median_ms * 1e3 / static_cast<double>(std::max<size_t>(t10k.items, 1))));
  out.rss_pods_mb = static_cast<double>(server.rss_bytes()) / 1e6;
  print_figure("VmRSS before the pods / holding 11,000 pods",
               format("%.1f / %.1f MB", out.rss_before_mb, out.rss_pods_mb));
  return out;
}

}  // namespace k3c::bench
