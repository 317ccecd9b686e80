// Phases 3 and 4: point reads and lists on a store of 10,000 keys with 1 KiB values.
#include <memory>
#include <vector>

#include "phases.h"
#include "store/store.h"

namespace k3c::bench {
namespace {

constexpr int kListKeys = 10000;
const std::string kListPrefix = "/registry/configmaps/";

Result<std::unique_ptr<store::Store>> open_store(const std::string& path) {
  store::Options options;
  options.path = path;
  options.sync = store::SyncMode::kFull;
  return store::open(options);
}

std::string read_key(int i) { return kListPrefix + format("ns-%02d/cm-%05d", i % 20, i); }

Status populate(store::Store& store) {
  FirstError failure;
  constexpr int kThreads = 16;
  run_threads(kThreads, std::chrono::hours(1), [&](int t, auto) {
    for (int i = t; i < kListKeys; i += kThreads) {
      auto r = store.create(read_key(i), make_value(kValueBytes, i));
      if (!r.is_ok()) return failure.record(r.status());
    }
  });
  return failure.get();
}

Result<Rate> get_rate(const BenchEnv& env, store::Store& store, int threads) {
  Rate rate;
  for (int rep = 0; rep < env.reps; ++rep) {
    std::vector<int64_t> done(threads);
    FirstError failure;
    double seconds = run_threads(threads, env.scaled(2), [&](int t, auto deadline) {
      uint64_t x = 88172645463325252ull + t;
      while (SteadyClock::now() < deadline) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        auto r = store.get(read_key(static_cast<int>(x % kListKeys)));
        if (!r.is_ok()) return failure.record(r.status());
        ++done[t];
      }
    });
    RETURN_IF_ERROR(failure.get());
    int64_t total = 0;
    for (int64_t d : done) total += d;
    rate.reps.push_back(static_cast<double>(total) / seconds);
  }
  rate.median = median(rate.reps);
  return rate;
}

struct ListTiming {
  double ms = 0;
  int pages = 0;
};

// Reads every key under the prefix in pages of `limit` (0 = one list) at one revision, as
// the API server does with continue tokens.
Result<ListTiming> list_all(store::Store& store, int64_t limit) {
  int64_t start = now_ns();
  store::ListOptions options;
  options.limit = limit;
  size_t items = 0;
  ListTiming out;
  while (true) {
    ASSIGN_OR_RETURN(store::ListResult page, store.list(kListPrefix, options));
    ++out.pages;
    items += page.items.size();
    if (!page.more) break;
    options.after = page.items.back().key;
    options.revision = page.revision;
  }
  out.ms = static_cast<double>(now_ns() - start) / 1e6;
  if (items != kListKeys) {
    return error(Code::kInternal, format("list returned %zu keys, expected %d", items, kListKeys));
  }
  return out;
}

// The median over at least five lists.
Result<ListTiming> median_list(const BenchEnv& env, store::Store& store, int64_t limit) {
  std::vector<double> ms;
  ListTiming one;
  for (int rep = 0; rep < std::max(env.reps, 5); ++rep) {
    ASSIGN_OR_RETURN(one, list_all(store, limit));
    ms.push_back(one.ms);
  }
  return ListTiming{median(ms), one.pages};
}

}  // namespace

Result<ReadFigures> run_store_reads(const BenchEnv& env) {
  ScratchDir dir(env, "reads");
  ASSIGN_OR_RETURN(auto store, open_store(dir.db_path()));
  RETURN_IF_ERROR(populate(*store));
  ReadFigures out;
  print_heading("3. Point reads: get() of existing keys (10,000 keys, 1 KiB values)");
  ASSIGN_OR_RETURN(out.gets_1, get_rate(env, *store, 1));
  print_figure("1 thread", to_string(out.gets_1, "gets/s"));
  ASSIGN_OR_RETURN(out.gets_4, get_rate(env, *store, 4));
  print_figure("4 threads", to_string(out.gets_4, "gets/s"));

  print_heading("4. List of 10,000 keys (1 KiB values)");
  ASSIGN_OR_RETURN(ListTiming full, median_list(env, *store, 0));
  out.full_list_ms = full.ms;
  print_figure("one list, no limit", format("%.1f ms", out.full_list_ms));
  ASSIGN_OR_RETURN(ListTiming paged, median_list(env, *store, 500));
  out.paged_list_ms = paged.ms;
  out.page_ms = paged.ms / paged.pages;
  print_figure("paginated, limit 500, all pages",
               format("%.1f ms (%d pages, %.2f ms/page)", paged.ms, paged.pages, out.page_ms));
  return out;
}

}  // namespace k3c::bench
