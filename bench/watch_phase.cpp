// Phase 5: how long a committed write takes to reach 100 watchers of its prefix. A writer
// creates keys at a modest, paced rate; each value carries the steady_clock time taken just
// before the create() call, and the writer notes when each call returned. Every watcher
// notes when next() handed it each event. Latency is given from both moments: from the
// call (what a client of the API server sees) and from the acknowledgement (the fan-out
// alone; it can be negative, because the store publishes a batch to watchers before it
// answers the batch's writers).
#include <atomic>
#include <charconv>
#include <memory>
#include <thread>
#include <vector>

#include "phases.h"
#include "store/store.h"

namespace k3c::bench {
namespace {

constexpr int kWatchers = 100;
constexpr double kEventsPerSecond = 200;
const std::string kPrefix = "/registry/pods/";
const std::string kKeyPrefix = kPrefix + "pod-";
const std::string kStamp = "sent_ns=";

struct Delivery {
  int64_t seq = 0;      // which write
  int64_t sent_ns = 0;  // read back from the event's value
  int64_t recv_ns = 0;  // when next() returned it
};

std::string watch_key(int64_t seq) {
  return kKeyPrefix + format("%06lld", static_cast<long long>(seq));
}

int64_t parse_int(std::string_view text) {
  int64_t v = -1;
  std::from_chars(text.data(), text.data() + text.size(), v);
  return v;
}

// Collects events until `expected` arrived or `give_up` is set.
Result<std::vector<Delivery>> watch_loop(store::Watcher& w, size_t expected,
                                         const std::atomic<bool>& give_up) {
  std::vector<Delivery> out;
  out.reserve(expected);
  while (out.size() < expected && !give_up.load()) {
    auto batch = w.next(std::chrono::milliseconds(50));
    int64_t recv = now_ns();
    if (!batch.is_ok()) return batch.status();
    for (const store::Event& e : *batch) {
      std::string_view value = e.kv.value;
      int64_t sent = parse_int(value.substr(kStamp.size(), value.find(';') - kStamp.size()));
      out.push_back({parse_int(std::string_view(e.kv.key).substr(kKeyPrefix.size())), sent, recv});
    }
  }
  return out;
}

// When each write was sent (just before the call) and acknowledged (the call returned).
struct WriteTimes {
  std::vector<int64_t> sent_ns;
  std::vector<int64_t> ack_ns;
};

// Writes `events` creates paced at kEventsPerSecond.
Result<WriteTimes> paced_writes(store::Store& store, int64_t events) {
  WriteTimes times{std::vector<int64_t>(events), std::vector<int64_t>(events)};
  const std::string padding = make_value(kValueBytes, 5);
  auto interval = std::chrono::nanoseconds(static_cast<int64_t>(1e9 / kEventsPerSecond));
  auto start = SteadyClock::now() + std::chrono::milliseconds(50);  // watchers are waiting
  for (int64_t seq = 0; seq < events; ++seq) {
    std::this_thread::sleep_until(start + seq * interval);
    int64_t sent = now_ns();
    std::string value = kStamp + std::to_string(sent) + ";";
    value += padding.substr(0, kValueBytes - value.size());
    auto r = store.create(watch_key(seq), std::move(value));
    times.ack_ns[seq] = now_ns();
    times.sent_ns[seq] = sent;
    if (!r.is_ok()) return r.status();
  }
  return times;
}

Result<WatchFigures> watch_rep(const BenchEnv& env) {
  ScratchDir dir(env, "watch");
  store::Options options;
  options.path = dir.db_path();
  ASSIGN_OR_RETURN(auto store, store::open(options));
  const auto events = static_cast<int64_t>(kEventsPerSecond * env.scaled(3).count() / 1e9);
  std::vector<std::vector<Delivery>> seen(kWatchers);
  std::vector<std::unique_ptr<store::Watcher>> watchers;
  std::vector<std::thread> threads;
  std::atomic<bool> give_up{false};
  FirstError watch_failure;
  for (int i = 0; i < kWatchers; ++i) {
    ASSIGN_OR_RETURN(auto w, store->watch(kPrefix, 0));
    watchers.push_back(std::move(w));
  }
  for (int i = 0; i < kWatchers; ++i) {
    threads.emplace_back([&, i] {
      auto deliveries = watch_loop(*watchers[i], events, give_up);
      if (deliveries.is_ok()) {
        seen[i] = std::move(deliveries).value();
      } else {
        watch_failure.record(deliveries.status());
      }
    });
  }
  auto times = paced_writes(*store, events);
  // Let the stragglers drain, then stop whoever is still waiting.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  give_up = true;
  for (auto& t : threads) t.join();
  if (!times.is_ok()) return times.status();
  RETURN_IF_ERROR(watch_failure.get());

  std::vector<int64_t> from_call, from_ack, from_commit, write;
  std::vector<int64_t> committed(times->ack_ns.begin(), times->ack_ns.end());
  for (const auto& deliveries : seen) {
    for (const Delivery& d : deliveries) committed[d.seq] = std::min(committed[d.seq], d.recv_ns);
  }
  for (const auto& deliveries : seen) {
    for (const Delivery& d : deliveries) {
      from_call.push_back(d.recv_ns - d.sent_ns);
      from_ack.push_back(d.recv_ns - times->ack_ns[d.seq]);
      from_commit.push_back(d.recv_ns - committed[d.seq]);
    }
  }
  for (int64_t seq = 0; seq < events; ++seq)
    write.push_back(times->ack_ns[seq] - times->sent_ns[seq]);
  WatchFigures out;
  out.missed = events * kWatchers - static_cast<int64_t>(from_call.size());
  out.from_call = summarize(std::move(from_call));
  out.from_ack = summarize(std::move(from_ack));
  out.from_commit = summarize(std::move(from_commit));
  out.write = summarize(std::move(write));
  double span_s = static_cast<double>(times->ack_ns.back() - times->sent_ns.front()) / 1e9;
  out.events_per_s = span_s > 0 ? static_cast<double>(events) / span_s : 0;
  return out;
}

}  // namespace

Result<WatchFigures> run_watch_latency(const BenchEnv& env) {
  print_heading(format("5. Watch delivery: %d watchers of one prefix, writer at %.0f creates/s",
                       kWatchers, kEventsPerSecond));
  std::vector<Latency> call, ack, commit, write;
  std::vector<double> rates;
  WatchFigures out;
  for (int rep = 0; rep < env.reps; ++rep) {
    ASSIGN_OR_RETURN(WatchFigures r, watch_rep(env));
    call.push_back(r.from_call);
    ack.push_back(r.from_ack);
    commit.push_back(r.from_commit);
    write.push_back(r.write);
    rates.push_back(r.events_per_s);
    out.missed += r.missed;
  }
  out.from_call = combine(call);
  out.from_ack = combine(ack);
  out.from_commit = combine(commit);
  out.write = combine(write);
  out.events_per_s = median(rates);
  print_figure("writer rate achieved", format("%.0f creates/s", out.events_per_s));
  print_figure("create() call itself", to_string(out.write));
  print_figure("latency from before create()", to_string(out.from_call));
  print_figure("latency from create() returning", to_string(out.from_ack));
  print_figure("latency from the commit", to_string(out.from_commit));
  print_figure("deliveries (all reps) / missed",
               format("%zu / %lld", out.from_call.count, static_cast<long long>(out.missed)));
  return out;
}

}  // namespace k3c::bench
