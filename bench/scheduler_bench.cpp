// k3c_scheduler_bench: scheduling decisions per second in-process on synthetic clusters of
// 1,000 and 5,000 nodes (scheduler_cluster.cpp), with upstream's adaptive
// percentageOfNodesToScore; the reference in the same run is the same decisions with every
// node filtered and scored (percentageOfNodesToScore 100). Each decision is schedule() plus
// assuming the pod onto the chosen node, as the scheduler's loop does. Not a test: it prints
// figures (medians over repetitions) and a summary table. See doc/benchmarks.md.
#include <time.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "bench_report.h"
#include "scheduler_cluster.h"

namespace k3c::bench {
namespace {

struct Args {
  int reps = 3;
  size_t existing_pods = 10000;
  size_t pending_pods = 2000;
  std::vector<size_t> sizes = {1000, 5000};
};

// CPU time of this thread: on a shared machine wall time also counts other programs' turns.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

struct Run {
  double decisions_per_s = 0;
  double decisions_per_cpu_s = 0;
  size_t unschedulable = 0;
  double mean_evaluated = 0;
};

// Schedules every pending pod in order, assuming each onto its node; then takes them off
// again so that the next repetition starts from the same cluster.
Run run_once(Cluster& c, int32_t percentage) {
  Run run;
  scheduler::ScheduleOptions options;
  options.percentage_of_nodes_to_score = percentage;
  std::vector<std::pair<std::string, std::string>> assumed;  // node, uid
  size_t evaluated = 0;
  auto start = SteadyClock::now();
  double cpu_start = thread_cpu_seconds();
  for (const scheduler::PodPtr& pod : c.pending) {
    scheduler::ScheduleResult r = scheduler::schedule(c.snapshot, *pod, options);
    options.start_index = r.next_start_index;
    evaluated += r.evaluated_nodes;
    if (!r.scheduled()) {
      ++run.unschedulable;
      continue;
    }
    auto placed = std::make_shared<scheduler::PodInfo>(*pod);
    placed->node_name = r.node;
    (void)c.snapshot.add_pod(placed);  // the node was just chosen from the snapshot
    assumed.emplace_back(r.node, pod->uid);
  }
  double seconds = std::chrono::duration<double>(SteadyClock::now() - start).count();
  double cpu_seconds = thread_cpu_seconds() - cpu_start;
  for (const auto& [node, uid] : assumed) (void)c.snapshot.remove_pod(node, uid);
  run.decisions_per_s = static_cast<double>(c.pending.size()) / seconds;
  run.decisions_per_cpu_s = static_cast<double>(c.pending.size()) / cpu_seconds;
  run.mean_evaluated = static_cast<double>(evaluated) / static_cast<double>(c.pending.size());
  return run;
}

struct Rates {
  Rate wall;
  Rate cpu;  // decisions per CPU-second of the scheduling thread
};

Rates measure(Cluster& c, int32_t percentage, int reps, Run& last) {
  Rates rates;
  for (int i = 0; i < reps; ++i) {
    last = run_once(c, percentage);
    rates.wall.reps.push_back(last.decisions_per_s);
    rates.cpu.reps.push_back(last.decisions_per_cpu_s);
  }
  rates.wall.median = median(rates.wall.reps);
  rates.cpu.median = median(rates.cpu.reps);
  return rates;
}

// A high-priority pod that fits only after evictions: how long preemption's dry run takes.
double preemption_ms(const Cluster& c) {
  auto pod = *scheduler::pod_from_json(nlohmann::json::parse(R"({
      "metadata": {"name": "urgent", "namespace": "ns-0", "uid": "urgent"},
      "spec": {"priority": 1000,
               "containers": [{"name": "c", "resources": {"requests": {"cpu": "15900m"}}}]}})"));
  std::vector<double> samples;
  for (int i = 0; i < 3; ++i) {
    auto start = SteadyClock::now();
    scheduler::ScheduleResult r = scheduler::schedule(c.snapshot, *pod);
    scheduler::PreemptionResult p = scheduler::preempt(c.snapshot, *pod, r.diagnosis);
    samples.push_back(
        std::chrono::duration<double, std::milli>(SteadyClock::now() - start).count());
    if (i == 0) {
      print_figure("preemption: nominated node, victims",
                   p.found() ? format("%s, %zu", p.nominated_node.c_str(), p.victims.size())
                             : "none: " + p.message);
    }
  }
  return median(samples);
}

}  // namespace
}  // namespace k3c::bench

int main(int argc, char** argv) {
  using namespace k3c::bench;
  Args args;
  CLI::App app{"k3c scheduler benchmark: decisions per second on synthetic clusters"};
  app.add_option("--reps", args.reps, "repetitions per figure")->check(CLI::Range(1, 20));
  app.add_option("--pods", args.existing_pods, "existing pods in the cluster");
  app.add_option("--pending", args.pending_pods, "pods scheduled per repetition");
  app.add_option("--nodes", args.sizes, "cluster sizes (nodes)");
  CLI11_PARSE(app, argc, argv);

  std::vector<SummaryRow> rows;
  for (size_t nodes : args.sizes) {
    print_heading(format("%zu nodes, %zu existing pods, %zu pending pods", nodes,
                         args.existing_pods, args.pending_pods));
    auto build_start = SteadyClock::now();
    Cluster cluster = make_cluster({nodes, args.existing_pods, args.pending_pods});
    print_figure(
        "building the snapshot (parse + add)",
        format(
            "%.0f ms",
            std::chrono::duration<double, std::milli>(SteadyClock::now() - build_start).count()));
    Run all_run, adaptive_run;
    Rates all_rates = measure(cluster, 100, args.reps, all_run);
    Rates adaptive_rates = measure(cluster, 0, args.reps, adaptive_run);
    const Rate& all = all_rates.wall;
    const Rate& adaptive = adaptive_rates.wall;
    print_figure("reference: every node filtered and scored", to_string(all, "decisions/s"));
    print_figure("  per CPU-second", to_string(all_rates.cpu, "decisions/s"));
    print_figure("  nodes evaluated per decision", format("%.0f", all_run.mean_evaluated));
    print_figure("adaptive percentageOfNodesToScore", to_string(adaptive, "decisions/s"));
    print_figure("  per CPU-second", to_string(adaptive_rates.cpu, "decisions/s"));
    print_figure("  nodes evaluated per decision", format("%.0f", adaptive_run.mean_evaluated));
    print_figure("  unschedulable pods", format("%zu", adaptive_run.unschedulable));
    double preempt = preemption_ms(cluster);
    print_figure("schedule + preemption dry run", format("%.1f ms", preempt));

    std::string label = format("decisions/s, %zu nodes", nodes);
    rows.push_back(
        {label + ", all nodes", format("%.0f decisions/s", all.median), "", "1.00x (ref)", {}});
    SummaryRow row =
        nodes == 1000
            ? floor_row(label + ", adaptive", adaptive.median, 5000, "decisions/s")
            : SummaryRow{
                  label + ", adaptive", format("%.0f decisions/s", adaptive.median), "", "", {}};
    row.ratio = format("%.2fx ref", adaptive.median / all.median) +
                (row.ratio.empty() ? "" : ", " + row.ratio);
    rows.push_back(row);
    rows.push_back({label + ", adaptive, per CPU-second",
                    format("%.0f decisions/s", adaptive_rates.cpu.median),
                    "",
                    "",
                    {}});
  }
  print_summary(rows);
  return 0;
}
