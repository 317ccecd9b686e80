// Jobs, CronJobs and TTL-after-finished driven by the real kubectl: completions and
// parallelism, backoffLimit, Indexed jobs, suspend/resume, podFailurePolicy, deletion after the
// TTL, a CronJob starting its job on schedule, `kubectl create job --from=cronjob/...`,
// concurrencyPolicy Forbid, and the apiserver refusing a bad schedule or time zone.
//
// There is no kubelet yet: `finish` plays its part by reporting a pod Succeeded or Failed (with
// the container's exit code) through the status subresource, as a kubelet would.
#include <catch2/catch.hpp>
#include <ctime>
#include <sstream>
#include <thread>

#include "kubectl_runner.h"

namespace k3c {
namespace {

using namespace std::chrono_literals;

struct Jobs {
  KubectlSandbox session{"1.33"};
  const KubectlRunner& kubectl = session.kubectl;

  std::string get(const std::vector<std::string>& what, const std::string& path) const {
    std::vector<std::string> args = {"get"};
    args.insert(args.end(), what.begin(), what.end());
    args.insert(args.end(), {"-o", "jsonpath=" + path});
    return kubectl(args).out;
  }
  struct Pod {
    std::string name, phase;
    bool deleting;
  };
  std::vector<Pod> pods(const std::string& job) const {
    std::vector<Pod> out;
    for (const auto& l : lines(get({"pods", "-l", "batch.kubernetes.io/job-name=" + job},
                                   "{range .items[*]}{.metadata.name}{\" \"}{.status.phase}"
                                   "{\" \"}{.metadata.deletionTimestamp}{\"\\n\"}{end}"))) {
      std::stringstream in(l);
      Pod p;
      std::string deleted;
      in >> p.name >> p.phase >> deleted;
      p.deleting = !deleted.empty();
      out.push_back(p);
    }
    return out;
  }
  // Pods of `job` not finished (being deleted or not).
  std::vector<std::string> running(const std::string& job) const {
    std::vector<std::string> out;
    for (const auto& p : pods(job))
      if (p.phase != "Succeeded" && p.phase != "Failed") out.push_back(p.name);
    return out;
  }
  // Pods of `job` running and not being deleted.
  std::vector<std::string> live(const std::string& job) const {
    std::vector<std::string> out;
    for (const auto& p : pods(job))
      if (p.phase != "Succeeded" && p.phase != "Failed" && !p.deleting) out.push_back(p.name);
    return out;
  }
  // Reports `pod` finished (as a kubelet would), its container exiting with `code`.
  void finish(const std::string& pod, bool succeeded, int code = 0,
              const std::string& condition = "") const {
    // Now: the job controller's backoff counts from when a pod finished.
    char now[32];
    std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    std::strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", &tm);
    std::string conditions = R"([{"type":"Ready","status":"False",)"
                             R"("lastTransitionTime":")" +
                             std::string(now) + R"("})";
    if (!condition.empty()) {
      conditions += R"(,{"type":")" + condition +
                    R"(","status":"True","lastTransitionTime":"2026-01-01T00:00:00Z"})";
    }
    conditions += "]";
    std::string patch = std::string(R"({"status":{"phase":")") +
                        (succeeded ? "Succeeded" : "Failed") + R"(","conditions":)" + conditions +
                        R"(,"containerStatuses":[{"name":"c","image":"busybox","imageID":"",)"
                        R"("ready":false,"restartCount":0,"state":{"terminated":{"exitCode":)" +
                        std::to_string(code) + R"(,"startedAt":")" + now + R"(","finishedAt":")" +
                        now + R"("}}}]}})";
    auto r = kubectl({"patch", "pod", pod, "--subresource=status", "--type=merge", "-p", patch});
    INFO(r.err);
    CHECK(r.exit_code == 0);
  }
  // Waits up to `limit` for `done`.
  template <typename F>
  bool eventually(F done, std::chrono::milliseconds limit = 20s) const {
    return k3c::eventually(done, limit);
  }
  std::string apply(const std::string& name, const std::string& yaml) const {
    return session.ok({"apply", "-f", session.file(name + ".yaml", yaml)});
  }
};

std::string job_yaml(const std::string& name, const std::string& spec_extra,
                     const std::string& pod_extra = "") {
  return "apiVersion: batch/v1\nkind: Job\nmetadata: {name: " + name + "}\nspec:\n" + spec_extra +
         "  template:\n    spec:\n      restartPolicy: Never\n" + pod_extra +
         "      containers: [{name: c, image: busybox}]\n";
}

TEST_CASE("a job runs its completions, at most parallelism at once, and completes") {
  Jobs t;
  t.apply("pi", job_yaml("pi", "  completions: 3\n  parallelism: 2\n"));
  REQUIRE(t.eventually([&] { return t.live("pi").size() == 2; }));
  CHECK(t.get({"job", "pi"}, "{.spec.selector.matchLabels}") ==
        "{\"batch.kubernetes.io/controller-uid\":\"" + t.get({"job", "pi"}, "{.metadata.uid}") +
            "\"}");
  auto first = t.live("pi").at(0);
  CHECK(t.get({"pod", first}, "{.metadata.finalizers}") ==
        "[\"batch.kubernetes.io/job-tracking\"]");
  CHECK(t.get({"pod", first}, "{.metadata.labels.job-name}") == "pi");
  CHECK(t.get({"pod", first}, "{.metadata.ownerReferences[0].kind}") == "Job");
  int most = 0;
  REQUIRE(t.eventually([&] {
    auto pods = t.live("pi");
    most = std::max(most, static_cast<int>(pods.size()));
    if (!pods.empty()) t.finish(pods[0], true);
    return t.get({"job", "pi"}, "{.status.succeeded}") == "3";
  }));
  CHECK(most <= 2);
  auto waited = t.kubectl({"wait", "--for=condition=complete", "job/pi", "--timeout=20s"});
  CHECK(waited.out == "job.batch/pi condition met\n");
  CHECK(t.get({"job", "pi"}, "{.status.conditions[*].type}") == "SuccessCriteriaMet Complete");
  CHECK(t.get({"job", "pi"}, "{.status.conditions[1].reason}") == "CompletionsReached");
  CHECK_FALSE(t.get({"job", "pi"}, "{.status.completionTime}").empty());
  CHECK(t.get({"job", "pi"}, "{.status.uncountedTerminatedPods}") == "{}");
  // Every pod was counted and let go of; the emptied finalizers list is omitted, as upstream.
  auto finalizers = t.get({"pods", "-l", "job-name=pi"}, "{.items[*].metadata.finalizers}");
  CHECK(finalizers == "");
  auto row = t.session.ok({"get", "job", "pi", "--no-headers"});
  CHECK_THAT(row,
             Catch::StartsWith("pi ") && Catch::Contains(" Complete ") && Catch::Contains(" 3/3 "));
  CHECK(t.eventually([&] {
    return t.kubectl({"describe", "job", "pi"}).out.find("Completed") != std::string::npos;
  }));
  CHECK_THAT(t.kubectl({"describe", "job", "pi"}).out,
             Catch::Contains("job-controller  Created pod: pi-"));
}

TEST_CASE("failures past backoffLimit fail the job, replacements wait out the backoff") {
  Jobs t;
  t.apply("flaky", job_yaml("flaky", "  backoffLimit: 1\n"));
  REQUIRE(t.eventually([&] { return t.live("flaky").size() == 1; }));
  auto first = t.live("flaky").at(0);
  t.finish(first, false, 1);
  REQUIRE(t.eventually([&] { return t.get({"job", "flaky"}, "{.status.failed}") == "1"; }));
  // The replacement waits 10 s after the first failure.
  std::this_thread::sleep_for(3s);
  CHECK(t.live("flaky").empty());
  REQUIRE(t.eventually([&] { return t.live("flaky").size() == 1; }, 20s));
  t.finish(t.live("flaky").at(0), false, 1);
  auto waited = t.kubectl({"wait", "--for=condition=failed", "job/flaky", "--timeout=20s"});
  CHECK(waited.exit_code == 0);
  CHECK(t.get({"job", "flaky"}, "{.status.failed}") == "2");
  CHECK(t.get({"job", "flaky"}, "{.status.conditions[*].type}") == "FailureTarget Failed");
  CHECK(t.get({"job", "flaky"}, "{.status.conditions[1].reason}") == "BackoffLimitExceeded");
  CHECK(t.eventually([&] {
    return t.kubectl({"describe", "job", "flaky"})
               .out.find("Job has reached the specified backoff limit") != std::string::npos;
  }));
}

TEST_CASE("an Indexed job runs one pod per index and reports completedIndexes") {
  Jobs t;
  t.apply("idx",
          job_yaml("idx", "  completions: 3\n  parallelism: 3\n  completionMode: Indexed\n"));
  REQUIRE(t.eventually([&] { return t.live("idx").size() == 3; }));
  auto indexes = t.get({"pods", "-l", "job-name=idx"},
                       "{.items[*].metadata.labels.batch\\.kubernetes\\.io/job-completion-index}");
  std::vector<std::string> sorted = lines(indexes);
  {
    std::stringstream in(indexes);
    sorted.clear();
    for (std::string w; in >> w;) sorted.push_back(w);
    std::sort(sorted.begin(), sorted.end());
  }
  CHECK(sorted == std::vector<std::string>{"0", "1", "2"});
  std::string one = t.get({"pods", "-l", "batch.kubernetes.io/job-completion-index=1"},
                          "{.items[0].metadata.name}");
  CHECK_THAT(one, Catch::StartsWith("idx-1-"));
  CHECK(t.get({"pod", one}, "{.spec.hostname}") == "idx-1");
  CHECK(t.get({"pod", one},
              "{.metadata.annotations.batch\\.kubernetes\\.io/job-completion-index}") == "1");
  CHECK(t.get({"pod", one}, "{.spec.containers[0].env[0].valueFrom.fieldRef.fieldPath}") ==
        "metadata.labels['batch.kubernetes.io/job-completion-index']");
  t.finish(one, true);
  REQUIRE(t.eventually([&] { return t.get({"job", "idx"}, "{.status.completedIndexes}") == "1"; }));
  for (const auto& pod : t.live("idx")) t.finish(pod, true);
  REQUIRE(t.kubectl({"wait", "--for=condition=complete", "job/idx", "--timeout=20s"}).exit_code ==
          0);
  CHECK(t.get({"job", "idx"}, "{.status.completedIndexes}") == "0-2");
  CHECK(t.get({"job", "idx"}, "{.status.succeeded}") == "3");
}

TEST_CASE("suspend deletes the pods, resume starts them again") {
  Jobs t;
  t.apply("sus", job_yaml("sus", "  suspend: true\n  parallelism: 2\n  completions: 2\n"));
  REQUIRE(t.eventually([&] {
    return t.get({"job", "sus"}, "{.status.conditions[?(@.type==\"Suspended\")].status}") == "True";
  }));
  CHECK(t.live("sus").empty());
  CHECK(t.get({"job", "sus"}, "{.status.startTime}").empty());
  CHECK_THAT(t.session.ok({"get", "job", "sus", "--no-headers"}), Catch::Contains("Suspended"));
  t.session.ok({"patch", "job", "sus", "--type=merge", "-p", R"({"spec":{"suspend":false}})"});
  REQUIRE(t.eventually([&] { return t.live("sus").size() == 2; }));
  CHECK(t.get({"job", "sus"}, "{.status.conditions[?(@.type==\"Suspended\")].reason}") ==
        "JobResumed");
  CHECK_FALSE(t.get({"job", "sus"}, "{.status.startTime}").empty());
  t.session.ok({"patch", "job", "sus", "--type=merge", "-p", R"({"spec":{"suspend":true}})"});
  REQUIRE(t.eventually([&] { return t.running("sus").empty(); }));
  CHECK(t.get({"job", "sus"}, "{.status.failed}").empty());  // suspended pods are no failures
  CHECK(t.get({"job", "sus"}, "{.status.active}").empty());
}

TEST_CASE("podFailurePolicy: Ignore does not count, FailJob fails the job at once") {
  Jobs t;
  t.apply("pfp", job_yaml("pfp",
                          "  completions: 2\n  parallelism: 2\n  backoffLimit: 0\n"
                          "  podFailurePolicy:\n    rules:\n"
                          "    - action: FailJob\n"
                          "      onExitCodes: {containerName: c, operator: In, values: [42]}\n"
                          "    - action: Ignore\n"
                          "      onPodConditions: [{type: DisruptionTarget}]\n"));
  REQUIRE(t.eventually([&] { return t.live("pfp").size() == 2; }));
  auto pods = t.live("pfp");
  t.finish(pods[0], false, 1, "DisruptionTarget");
  std::this_thread::sleep_for(2s);
  // Ignored: with backoffLimit 0 a counted failure would have failed the job.
  CHECK(t.get({"job", "pfp"}, "{.status.failed}").empty());
  CHECK(t.get({"job", "pfp"}, "{.status.conditions}").empty());
  t.finish(pods[1], false, 42);
  auto waited = t.kubectl({"wait", "--for=condition=failed", "job/pfp", "--timeout=20s"});
  INFO(t.kubectl({"get", "job", "pfp", "-o", "yaml"}).out);
  INFO(t.kubectl({"get", "pods", "-o", "yaml"}).out);
  REQUIRE(waited.exit_code == 0);
  CHECK(t.get({"job", "pfp"}, "{.status.conditions[1].reason}") == "PodFailurePolicy");
  CHECK(t.get({"job", "pfp"}, "{.status.conditions[1].message}") ==
        "Container c for pod default/" + pods[1] +
            " failed with exit code 42 matching FailJob rule at index 0");
  CHECK(t.get({"job", "pfp"}, "{.status.failed}") == "1");
}

TEST_CASE("ttlSecondsAfterFinished deletes a finished job and its pods") {
  Jobs t;
  t.apply("brief", job_yaml("brief", "  ttlSecondsAfterFinished: 2\n"));
  REQUIRE(t.eventually([&] { return t.live("brief").size() == 1; }));
  t.finish(t.live("brief").at(0), true);
  REQUIRE(t.kubectl({"wait", "--for=condition=complete", "job/brief", "--timeout=20s"}).exit_code ==
          0);
  // Still there right after finishing, gone a couple of seconds later.
  CHECK(t.kubectl({"get", "job", "brief"}).exit_code == 0);
  REQUIRE(t.eventually([&] { return t.kubectl({"get", "job", "brief"}).exit_code == 1; }));
  CHECK(t.eventually([&] { return t.get({"pods", "-l", "job-name=brief"}, "{.items}") == "[]"; }));
}

TEST_CASE("cronjobs: a scheduled job, --from, Forbid, and bad schedules refused") {
  Jobs t;
  // Runs while the rest of this test does: its first job comes at the next minute.
  t.session.ok({"create", "cronjob", "every", "--image=busybox", "--schedule=*/1 * * * *"});
  t.session.ok({"create", "cronjob", "lazy", "--image=busybox", "--schedule=0 0 1 1 *"});

  {
    INFO("create job --from=cronjob");
    t.session.ok({"create", "job", "manual", "--from=cronjob/lazy"});
    CHECK(t.get({"job", "manual"}, "{.metadata.ownerReferences[0].kind}") == "CronJob");
    CHECK(t.get({"job", "manual"},
                "{.metadata.annotations.cronjob\\.kubernetes\\.io/instantiate}") == "manual");
    CHECK_FALSE(t.get({"job", "manual"}, "{.spec.selector.matchLabels}").empty());
    REQUIRE(t.eventually([&] { return t.live("manual").size() == 1; }));
  }

  {
    INFO("Forbid skips a start while a job runs; Allow starts it");
    // A running job listed as active and a last start long ago: the latest missed start is
    // due at once, which Forbid must skip and Allow must start. Created suspended, so that
    // nothing starts before the status says so.
    for (const char* policy : {"Forbid", "Allow"}) {
      std::string name = std::string("p-") + policy;
      for (char& c : name) c = static_cast<char>(std::tolower(c));
      t.apply(name,
              "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: " + name +
                  "}\nspec:\n  schedule: '*/1 * * * *'\n  suspend: true\n  concurrencyPolicy: " +
                  policy +
                  "\n  jobTemplate:\n    spec:\n      template:\n        spec:\n"
                  "          restartPolicy: Never\n"
                  "          containers: [{name: c, image: busybox}]\n");
      t.session.ok({"create", "job", name + "-running", "--from=cronjob/" + name});
      std::string uid = t.get({"job", name + "-running"}, "{.metadata.uid}");
      t.session.ok({"patch", "cronjob", name, "--subresource=status", "--type=merge", "-p",
                    R"({"status":{"lastScheduleTime":"2026-01-01T00:00:00Z","active":[)"
                    R"({"kind":"Job","apiVersion":"batch/v1","namespace":"default","name":")" +
                        name + R"(-running","uid":")" + uid + R"("}]}})"});
      t.session.ok(
          {"patch", "cronjob", name, "--type=merge", "-p", R"({"spec":{"suspend":false}})"});
    }
    REQUIRE(t.eventually([&] {
      return t.get({"cronjob", "p-allow"}, "{.status.active[*].name}").find("p-allow-2") !=
             std::string::npos;
    }));
    CHECK(t.eventually([&] {
      return t.kubectl({"describe", "cronjob", "p-forbid"})
                 .out.find("Not starting job because prior execution is running") !=
             std::string::npos;
    }));
    CHECK(t.get({"jobs"}, "{.items[*].metadata.name}").find("p-forbid-2") == std::string::npos);
    CHECK(t.get({"cronjob", "p-forbid"}, "{.status.lastScheduleTime}") == "2026-01-01T00:00:00Z");
  }

  {
    INFO("bad schedules and time zones are refused");
    auto bad = t.kubectl({"create", "cronjob", "bad", "--image=busybox", "--schedule=61 * * * *"});
    CHECK(bad.exit_code == 1);
    CHECK_THAT(bad.err, Catch::Contains("spec.schedule: Invalid value: \"61 * * * *\": end of "
                                        "range (61) above maximum (59): 61"));
    std::string cj =
        "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: tz}\nspec:\n"
        "  schedule: '0 9 * * *'\n  timeZone: Mars/Olympus\n  jobTemplate:\n"
        "    spec:\n      template:\n        spec:\n          restartPolicy: Never\n"
        "          containers: [{name: c, image: busybox}]\n";
    auto tz = t.kubectl({"apply", "-f", t.session.file("tz.yaml", cj)});
    CHECK(tz.exit_code == 1);
    CHECK_THAT(tz.err, Catch::Contains("spec.timeZone: Invalid value: \"Mars/Olympus\": unknown "
                                       "time zone Mars/Olympus"));
    cj.replace(cj.find("Mars/Olympus"), 12, "Europe/Berlin");
    t.session.ok({"apply", "-f", t.session.file("tz.yaml", cj)});
    auto prefixed =
        t.kubectl({"create", "cronjob", "tzs", "--image=busybox", "--schedule=TZ=UTC 0 * * * *"});
    CHECK_THAT(prefixed.err, Catch::Contains("cannot use TZ or CRON_TZ in schedule"));
  }

  // The scheduled one: a job named <cronjob>-<minutes since the epoch> within a minute.
  REQUIRE(t.eventually(
      [&] {
        return !t.get({"cronjob", "every"}, "{.status.active}").empty();
      },
      70s));
  std::string job = t.get({"cronjob", "every"}, "{.status.active[0].name}");
  std::string last = t.get({"cronjob", "every"}, "{.status.lastScheduleTime}");
  std::tm tm{};
  REQUIRE(strptime(last.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm) != nullptr);
  CHECK(job == "every-" + std::to_string(timegm(&tm) / 60));
  CHECK(t.get({"job", job},
              "{.metadata.annotations.batch\\.kubernetes\\.io/"
              "cronjob-scheduled-timestamp}") == last);
  REQUIRE(t.eventually([&] { return t.live(job).size() == 1; }));
  t.finish(t.live(job).at(0), true);
  REQUIRE(t.eventually([&] {
    return t.get({"cronjob", "every"}, "{.status.lastSuccessfulTime}") != "";
  }));
  CHECK(t.eventually([&] {
    return t.get({"cronjob", "every"}, "{.status.active[*].name}").find(job) == std::string::npos;
  }));
  CHECK_THAT(t.kubectl({"describe", "cronjob", "every"}).out,
             Catch::Contains("Created job " + job));
}

}  // namespace
}  // namespace k3c
