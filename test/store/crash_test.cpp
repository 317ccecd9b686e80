// The crash test: a child process writes with many concurrent writers, logging every
// acknowledged write, and is killed with SIGKILL at random moments, again and again. After
// each kill the store is reopened and every acknowledged write must be there, with the
// revision it was acknowledged at, and the revision sequence must be intact.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "store/store.h"
#include "temp_dir.h"

namespace k3c::store {
namespace {

using namespace std::chrono_literals;

struct Ack {
  int64_t revision;
  std::string value;
};

// The acknowledged writes: the create of each key, and the newest acknowledged value of each
// counter. A partial last line (the kill landed inside a write) is ignored.
struct AckLog {
  std::map<std::string, Ack> creates;
  std::map<std::string, Ack> counters;
};

AckLog read_acks(const std::string& path) {
  AckLog log;
  std::ifstream in(path);
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream lines(content.substr(0, content.rfind('\n') + 1));
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream f(line);
    std::string kind, key, value;
    int64_t rev = 0;
    f >> kind >> key >> rev >> value;
    auto& into = kind == "C" ? log.creates : log.counters;
    auto it = into.find(key);
    if (it == into.end() || it->second.revision < rev) into[key] = Ack{rev, value};
  }
  return log;
}

pid_t spawn_writer(const std::string& db, const std::string& acks, int round) {
  pid_t pid = fork();
  if (pid == 0) {
    execl(K3C_CRASH_WRITER, K3C_CRASH_WRITER, db.c_str(), acks.c_str(),
          ("r" + std::to_string(round)).c_str(), "16", static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

TEST_CASE("no acknowledged write is lost when the writer is killed with SIGKILL") {
  TempDir dir;
  const std::string db = dir.path() + "/state.db";
  const std::string acks = dir.path() + "/acks.log";
  std::mt19937 rng(std::random_device{}());
  std::uniform_int_distribution<int> pause_ms(30, 400);
  int64_t last_revision = 0;
  size_t verified = 0;

  for (int round = 0; round < 12; ++round) {
    pid_t pid = spawn_writer(db, acks, round);
    REQUIRE(pid > 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms(rng)));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    INFO("round " << round);
    REQUIRE(WIFSIGNALED(status));  // it was still writing, not dead of an error

    Options o;
    o.path = db;
    o.maintenance_interval = 0ms;
    auto opened = open(o);
    INFO(opened.status().to_string());
    REQUIRE(opened.is_ok());
    auto& s = *opened;
    AckLog log = read_acks(acks);
    // Every acknowledged create is there, at its revision, with its value.
    std::set<int64_t> revisions;
    for (const auto& [key, ack] : log.creates) {
      auto g = s->get(key);
      INFO(key);
      REQUIRE(g.is_ok());
      REQUIRE(g->mod_revision == ack.revision);
      REQUIRE(g->create_revision == ack.revision);
      REQUIRE(g->value == ack.value);
      REQUIRE(revisions.insert(ack.revision).second);  // revisions are unique
    }
    // Every counter is at least at its last acknowledged value (a write may have committed
    // without its acknowledgement reaching the log), and never at a revision below it.
    for (const auto& [key, ack] : log.counters) {
      auto g = s->get(key);
      REQUIRE(g.is_ok());
      REQUIRE(std::stol(g->value) >= std::stol(ack.value));
      REQUIRE(g->mod_revision >= ack.revision);
    }
    // The revision never goes backwards across restarts, and the store's listing agrees with
    // the keys it holds.
    REQUIRE(s->current_revision() >= last_revision);
    last_revision = s->current_revision();
    auto all = s->list("/crash/", {});
    REQUIRE(all.is_ok());
    REQUIRE(all->items.size() >= log.creates.size());
    for (const auto& kv : all->items) REQUIRE(kv.mod_revision <= last_revision);
    verified = log.creates.size();
  }
  INFO("verified acknowledged creates: " << verified);
  REQUIRE(verified > 1000);
}

}  // namespace
}  // namespace k3c::store
