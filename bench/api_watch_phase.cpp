// Phase 5: watch delivery to 1,000 concurrent watchers. Each repetition opens 1,000 watch
// connections on ConfigMaps in namespace default from the current resourceVersion, then one
// writer creates ConfigMaps at 50/s for 3 s on its own connection. Each ConfigMap carries
// its number and the steady_clock time taken just before its request was written; each
// watcher finds both in the event line (no JSON parse) and notes when the line was read.
// Latency is given from the create's answer arriving (the fan-out) and from before the
// request (what a client sees end to end; it includes the durable write).
#include <sys/resource.h>

#include <atomic>
#include <charconv>
#include <nlohmann/json.hpp>
#include <thread>

#include "api_phases.h"
#include "watch_floor.h"

namespace k3c::bench {
namespace {

constexpr int kWatchers = 1000;
constexpr double kEventsPerSecond = 50;
constexpr double kWriteSeconds = 3;
constexpr auto kDrain = std::chrono::seconds(2);
// The writer stops after this much more than its planned time even when creates are slow.
constexpr auto kWriterOverrun = std::chrono::seconds(3);
const std::string kConfigMaps = "/api/v1/namespaces/default/configmaps";

// Finds `"<field>":"<digits>"` in an event line.
int64_t field_of(std::string_view line, std::string_view field) {
  size_t at = line.find(field);
  if (at == std::string_view::npos) return -1;
  at += field.size();
  int64_t v = -1;
  std::from_chars(line.data() + at, line.data() + line.size(), v);
  return v;
}

struct Delivery {
  int64_t seq = 0;
  int64_t sent_ns = 0;  // read back from the event
  int64_t recv_ns = 0;
};

// What the watchers saw; each watcher writes only its own slot.
struct Seen {
  explicit Seen(int64_t events) : deliveries(kWatchers), errors(kWatchers) {
    for (auto& d : deliveries) d.reserve(events);
  }
  std::vector<std::vector<Delivery>> deliveries;
  std::vector<int64_t> errors;  // ERROR events and lines that are not ADDED ConfigMaps
  std::atomic<int64_t> total{0};

  void on_line(int w, std::string_view line, int64_t recv) {
    int64_t seq = field_of(line, R"("seq":")");
    if (line.find(R"({"type":"ADDED")") != 0 || seq < 0) {
      ++errors[w];
      return;
    }
    deliveries[w].push_back({seq, field_of(line, R"("sent_ns":")"), recv});
    ++total;
  }
};

Result<std::string> current_revision(ApiConnection& conn) {
  ASSIGN_OR_RETURN(Answer a, conn.request("GET", kConfigMaps + "?limit=1"));
  auto list = nlohmann::json::parse(a.body, nullptr, /*allow_exceptions=*/false);
  if (a.status != 200 || list.is_discarded()) {
    return error(Code::kInternal, format("LIST configmaps: HTTP %d", a.status));
  }
  return list["metadata"].value("resourceVersion", "");
}

struct Writes {
  std::vector<int64_t> sent_ns, ack_ns;
  std::vector<bool> created;  // 201: an event is due
  int64_t failed = 0;
  std::string first_failure;
};

// Creates up to `events` ConfigMaps paced at kEventsPerSecond on one connection; stops early
// when the creates fall kWriterOverrun behind. Returns the times of those it sent.
Writes paced_creates(ApiConnection& conn, int rep, int64_t events) {
  Writes w;
  auto interval = std::chrono::nanoseconds(static_cast<int64_t>(1e9 / kEventsPerSecond));
  auto start = SteadyClock::now();
  auto stop = start + events * interval + kWriterOverrun;
  for (int64_t seq = 0; seq < events && SteadyClock::now() < stop; ++seq) {
    std::this_thread::sleep_until(start + seq * interval);
    const int64_t sent = now_ns();
    std::string body = format(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":)"
                              R"("watch-%d-%lld"},"data":{"seq":"%lld","sent_ns":"%lld"}})",
                              rep, static_cast<long long>(seq), static_cast<long long>(seq),
                              static_cast<long long>(sent));
    auto a = conn.request("POST", kConfigMaps, body);
    w.ack_ns.push_back(now_ns());
    w.sent_ns.push_back(sent);
    w.created.push_back(a.is_ok() && a->status == 201);
    if (!w.created.back()) {
      ++w.failed;
      if (w.first_failure.empty()) {
        w.first_failure = a.is_ok() ? format("HTTP %d", a->status) : a.status().to_string();
      }
    }
  }
  return w;
}

// The figures of one repetition from what the writer and the watchers noted.
WatchDeliveryFigures delivery_figures(const Seen& seen, const Writes& writes) {
  const auto written = static_cast<int64_t>(writes.sent_ns.size());
  std::vector<int64_t> from_ack, from_send, create;
  std::vector<int64_t> first(written, INT64_MAX), last(written, INT64_MIN);
  WatchDeliveryFigures out;
  for (int w = 0; w < kWatchers; ++w) {
    out.errors += seen.errors[w];
    for (const Delivery& d : seen.deliveries[w]) {
      if (d.seq >= written) continue;
      from_ack.push_back(d.recv_ns - writes.ack_ns[d.seq]);
      from_send.push_back(d.recv_ns - d.sent_ns);
      first[d.seq] = std::min(first[d.seq], d.recv_ns);
      last[d.seq] = std::max(last[d.seq], d.recv_ns);
    }
  }
  std::vector<int64_t> spread;
  for (int64_t seq = 0; seq < written; ++seq) {
    create.push_back(writes.ack_ns[seq] - writes.sent_ns[seq]);
    if (writes.created[seq]) out.expected += kWatchers;
    if (last[seq] >= first[seq]) spread.push_back(last[seq] - first[seq]);
  }
  out.errors += writes.failed;
  out.missed = out.expected - static_cast<int64_t>(from_ack.size());
  out.from_ack = summarize(std::move(from_ack));
  out.from_send = summarize(std::move(from_send));
  out.create = summarize(std::move(create));
  out.fan_out = summarize(std::move(spread));
  const double span_s =
      written > 0 ? static_cast<double>(writes.ack_ns.back() - writes.sent_ns.front()) / 1e9 : 0;
  out.events_per_s = span_s > 0 ? static_cast<double>(written) / span_s : 0;
  return out;
}

// A server the watchers and the writer drive: k3c, or the floor (watch_floor.h).
struct WatchTarget {
  const char* name;
  ApiClient& client;
  const BenchProcess& process;
};

Result<WatchDeliveryFigures> watch_rep(const ApiBenchEnv& env, const WatchTarget& target, int rep) {
  const auto events = static_cast<int64_t>(kEventsPerSecond * kWriteSeconds * env.scale);
  ASSIGN_OR_RETURN(auto conn, target.client.connect());
  ASSIGN_OR_RETURN(std::string revision, current_revision(*conn));
  Seen seen(events);
  const auto open_start = SteadyClock::now();
  double server_cpu = target.process.cpu_seconds(), client_cpu = self_cpu_seconds();
  ASSIGN_OR_RETURN(
      auto fleet,
      target.client.watch(
          kWatchers, kConfigMaps + "?watch=true&resourceVersion=" + revision,
          [&seen](int w, std::string_view line, int64_t recv) { seen.on_line(w, line, recv); },
          env.client_threads, std::chrono::seconds(60)));
  print_figure(format("rep %d, %s: %d watches opened in", rep + 1, target.name, kWatchers),
               format("%.2f s (CPU: server %.2f s, this client %.2f s)",
                      std::chrono::duration<double>(SteadyClock::now() - open_start).count(),
                      target.process.cpu_seconds() - server_cpu, self_cpu_seconds() - client_cpu));
  server_cpu = target.process.cpu_seconds();
  client_cpu = self_cpu_seconds();
  Writes writes = paced_creates(*conn, rep, events);
  const int64_t due = static_cast<int64_t>(writes.sent_ns.size() - writes.failed) * kWatchers;
  for (auto until = SteadyClock::now() + kDrain; seen.total < due && SteadyClock::now() < until;) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  server_cpu = target.process.cpu_seconds() - server_cpu;
  client_cpu = self_cpu_seconds() - client_cpu;
  const int broken = fleet->broken();
  const double rss_mb = static_cast<double>(target.process.rss_bytes()) / 1e6;
  fleet.reset();  // closes the watches before the figures are read

  WatchDeliveryFigures out = delivery_figures(seen, writes);
  out.errors += broken;
  out.rss_mb = rss_mb;
  const double delivered = static_cast<double>(out.expected - out.missed);
  if (delivered > 0) {
    out.server_cpu_us = server_cpu / delivered * 1e6;
    out.client_cpu_us = client_cpu / delivered * 1e6;
  }
  if (writes.failed > 0 || broken > 0) {
    print_figure("  failed creates / broken watches",
                 format("%lld / %d; first: %s", static_cast<long long>(writes.failed), broken,
                        writes.first_failure.c_str()));
  }
  return out;
}

// The repetitions of one target, combined as medians.
struct Reps {
  std::vector<Latency> ack, send, create, fan_out;
  std::vector<double> rates, server_cpu, client_cpu, rss;
  WatchDeliveryFigures total;

  void add(const WatchDeliveryFigures& r) {
    ack.push_back(r.from_ack);
    send.push_back(r.from_send);
    create.push_back(r.create);
    fan_out.push_back(r.fan_out);
    rss.push_back(r.rss_mb);
    rates.push_back(r.events_per_s);
    server_cpu.push_back(r.server_cpu_us);
    client_cpu.push_back(r.client_cpu_us);
    total.expected += r.expected;
    total.missed += r.missed;
    total.errors += r.errors;
  }
  WatchDeliveryFigures combined() const {
    WatchDeliveryFigures out = total;
    out.from_ack = combine(ack);
    out.from_send = combine(send);
    out.create = combine(create);
    out.fan_out = combine(fan_out);
    out.rss_mb = median(rss);
    out.events_per_s = median(rates);
    out.server_cpu_us = median(server_cpu);
    out.client_cpu_us = median(client_cpu);
    return out;
  }
};

void print_delivery(const char* who, const WatchDeliveryFigures& out) {
  std::printf("  %s:\n", who);
  print_figure("writer rate achieved", format("%.0f creates/s", out.events_per_s));
  print_figure("create request itself", to_string(out.create));
  print_figure("latency from the create's answer", to_string(out.from_ack));
  print_figure("latency from before the create", to_string(out.from_send));
  print_figure("one event to all watchers (first to last)", to_string(out.fan_out));
  print_figure("VmRSS with the watches open", format("%.1f MB", out.rss_mb));
  print_figure("CPU per delivery: server / this client",
               format("%.1f / %.1f us", out.server_cpu_us, out.client_cpu_us));
  print_figure("deliveries (all reps) / missed / errors",
               format("%lld / %lld / %lld", static_cast<long long>(out.expected - out.missed),
                      static_cast<long long>(out.missed), static_cast<long long>(out.errors)));
}

// The fd limit: 1,000 watch connections plus the load clients need more than the usual 1024.
void raise_fd_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    setrlimit(RLIMIT_NOFILE, &limit);  // best effort: opening the watches reports a failure
  }
}

}  // namespace

Result<WatchPhaseFigures> run_watch_delivery(const ApiBenchEnv& env, BenchServer& server,
                                             WatchFloor* floor) {
  print_heading(
      format("5. Watch delivery: %d watchers, writer at %.0f creates/s for %.1f s, "
             "%d reps%s",
             kWatchers, kEventsPerSecond, kWriteSeconds * env.scale, env.reps,
             floor ? ", each followed by one against the floor server" : ""));
  raise_fd_limit();
  Reps k3c, reference;
  for (int rep = 0; rep < env.reps; ++rep) {
    ASSIGN_OR_RETURN(WatchDeliveryFigures r,
                     watch_rep(env, {"k3c", server.client(), server.process()}, rep));
    k3c.add(r);
    if (!floor) continue;
    ASSIGN_OR_RETURN(WatchDeliveryFigures f,
                     watch_rep(env, {"floor", floor->client(), floor->process()}, rep));
    reference.add(f);
  }
  WatchPhaseFigures out;
  out.k3c = k3c.combined();
  print_delivery("k3c", out.k3c);
  if (floor) {
    out.floor = reference.combined();
    print_delivery("floor (k3c_watch_floor_server: TLS fan-out and nothing else)", *out.floor);
    print_figure("k3c / floor: p99 from the create's answer, server CPU per delivery",
                 format("%.2fx, %.2fx", out.k3c.from_ack.p99_ms / out.floor->from_ack.p99_ms,
                        out.k3c.server_cpu_us / out.floor->server_cpu_us));
  }
  return out;
}

}  // namespace k3c::bench
