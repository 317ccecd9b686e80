// CgroupManager::kill_all and remove (see cgroup_manager.h): ending every process of a cgroup
// tree without racing its forks, and removing the tree once the processes have drained.
#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include "runtime/cgroups/cgroup_manager.h"
#include "runtime/cgroups/control_files.h"

namespace k3c::runtime {
namespace {

using namespace std::chrono_literals;

// How long remove() waits for killed processes to leave (EBUSY) and freeze() for the freezer.
constexpr int kRemoveAttempts = 100;
constexpr auto kRemoveDelay = 10ms;
constexpr int kFreezeAttempts = 100;
constexpr auto kFreezeDelay = 2ms;
// Without a freezer, rounds of list-and-kill until a listing shows no new process.
constexpr int kKillRounds = 20;
constexpr auto kKillDelay = 5ms;

}  // namespace

// Every pid in `dir` and the cgroups below it.
std::vector<pid_t> CgroupManager::pids_below(const std::string& dir) const {
  std::vector<pid_t> pids = cgroup_files::parse_pids(os_->read(dir + "/cgroup.procs").data);
  for (const std::string& child : os_->list_dirs(dir).names) {
    auto more = pids_below(dir + "/" + child);
    pids.insert(pids.end(), more.begin(), more.end());
  }
  return pids;
}

// Freezes (or thaws) the tree so that nothing in it forks while it is being killed: v1 through
// the freezer hierarchy, v2 through cgroup.freeze. Freezing waits for the tree to settle
// (FREEZING -> FROZEN) and says whether it did; false also when there is no freezer here, and
// the caller then kills in rounds to catch forks.
bool CgroupManager::freeze(const std::string& path, bool frozen) {
  std::string state_file, want, value;
  if (unified_) {
    state_file = dir_in(hierarchies_.front(), path) + "/cgroup.freeze";
    value = frozen ? "1" : "0";
    want = value;
  } else if (const Hierarchy* h = hierarchy_of("freezer")) {
    state_file = dir_in(*h, path) + "/freezer.state";
    value = frozen ? "FROZEN" : "THAWED";
    want = value;
  } else {
    return false;
  }
  if (!os_->exists(state_file) || os_->write(state_file, value) != 0) return false;
  if (!frozen) return true;
  for (int i = 0; i < kFreezeAttempts; ++i) {
    // v2 reports the settled state in cgroup.events ("frozen 1"); v1 in freezer.state itself.
    const bool settled =
        unified_
            ? cgroup_files::keyed_value(
                  os_->read(state_file.substr(0, state_file.rfind('/')) + "/cgroup.events").data,
                  "frozen") == 1u
            : os_->read(state_file).data.starts_with(want);
    if (settled) return true;
    os_->sleep_for(kFreezeDelay);
  }
  return false;
}

Status CgroupManager::signal_all(const std::string& path) {
  const bool frozen = freeze(path, true);
  std::set<pid_t> signalled;
  Status result;
  for (int round = 0; round < kKillRounds; ++round) {
    std::set<pid_t> found;
    for (const Hierarchy& h : hierarchies_) {
      for (pid_t pid : pids_below(dir_in(h, path))) found.insert(pid);
    }
    bool fresh = false;
    for (pid_t pid : found) {
      if (!signalled.insert(pid).second) continue;
      fresh = true;
      const int err = os_->kill(pid, SIGKILL);
      if (err != 0 && err != ESRCH) {
        result = error(Code::kInternal, "kill " + std::to_string(pid) + " in cgroup " + path +
                                            ": " + std::strerror(err));
      }
    }
    // Frozen, nothing could fork: one round saw everything.
    if (!fresh || frozen) break;
    os_->sleep_for(kKillDelay);
  }
  // v1's freezer holds killed tasks until thawed; thawing lets them die. Also after a freeze
  // that did not settle in time.
  freeze(path, false);
  return result;
}

Status CgroupManager::kill_all(const std::string& path) {
  RETURN_IF_ERROR(cgroup_files::check_path(path));
  if (!exists_anywhere(path)) return Status::ok();
  if (unified_) {
    const std::string kill_file = dir_in(hierarchies_.front(), path) + "/cgroup.kill";
    if (os_->exists(kill_file)) {
      const int err = os_->write(kill_file, "1");
      if (err == 0 || err == ENOENT) return Status::ok();  // ENOENT: removed meanwhile
      return error(Code::kInternal, "write " + kill_file + ": " + std::strerror(err));
    }
  }
  return signal_all(path);
}

void CgroupManager::thaw(const std::string& path) {
  if (!cgroup_files::check_path(path).is_ok() || !exists_anywhere(path)) return;
  (void)freeze(path, false);
}

// rmdir of `dir`'s subtree, deepest first. EBUSY means processes are still leaving (a killed
// process holds its cgroup until it is reaped): retried for about a second.
Status CgroupManager::remove_tree(const std::string& dir) {
  OsList below = os_->list_dirs(dir);
  if (below.err == ENOENT) return Status::ok();
  for (const std::string& child : below.names) RETURN_IF_ERROR(remove_tree(dir + "/" + child));
  int err = 0;
  for (int attempt = 0; attempt < kRemoveAttempts; ++attempt) {
    err = os_->remove_dir(dir);
    if (err == 0 || err == ENOENT) return Status::ok();
    if (err != EBUSY) break;
    os_->sleep_for(kRemoveDelay);
  }
  if (err == EBUSY) {
    return error(Code::kConflict, "remove cgroup " + dir + ": processes are still in it after " +
                                      std::to_string(kRemoveAttempts * kRemoveDelay.count()) +
                                      "ms");
  }
  return error(Code::kInternal, "remove cgroup " + dir + ": " + std::strerror(err));
}

Status CgroupManager::remove(const std::string& path) {
  RETURN_IF_ERROR(cgroup_files::check_path(path));
  Status result;
  // Every hierarchy is tried even when one fails, so as little as possible is left behind.
  for (const Hierarchy& h : hierarchies_) {
    Status s = remove_tree(dir_in(h, path));
    if (result.is_ok() && !s.is_ok()) result = s;
  }
  return result;
}

}  // namespace k3c::runtime
