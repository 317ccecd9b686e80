// An in-memory cgroupfs for tests of code built on runtime::CgroupManager. It behaves as the
// kernel does where the manager depends on it: control files appear on mkdir (in v2 only for
// the controllers the parent enabled in cgroup.subtree_control), writing a pid to cgroup.procs
// moves it within its hierarchy, rmdir of a cgroup with processes or children fails with
// EBUSY, cgroup.kill and kill() remove processes, v2 refuses to enable controllers in a
// cgroup that holds processes, and v1 refuses a memory limit below the usage (EBUSY).
//
// Fault switches: write_errors (path -> errno of every write), busy_rmdirs (path -> how many
// rmdirs fail with EBUSY first), freezing_reads (freezer.state reads FREEZING that many times).
// Single-threaded: a test drives it from one thread.
#pragma once

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "runtime/cgroups/cgroup_os.h"

namespace k3c::testing {

class FakeCgroupOs : public runtime::CgroupOs {
 public:
  using FsType = runtime::FsType;
  using OsRead = runtime::OsRead;
  using OsList = runtime::OsList;

  // Pure v2: cgroup2 at `root` offering `controllers`; `with_kill` = the kernel has cgroup.kill.
  static std::shared_ptr<FakeCgroupOs> v2(const std::string& root = "/sys/fs/cgroup",
                                          std::vector<std::string> controllers = {"cpu", "cpuset",
                                                                                  "io", "memory",
                                                                                  "pids"},
                                          bool with_kill = true) {
    auto fs = std::make_shared<FakeCgroupOs>();
    fs->with_kill = with_kill;
    fs->add_dir_node(parent_of(root));
    fs->mount(root, FsType::kCgroup2, {});
    fs->set(root + "/cgroup.controllers", join(controllers));
    return fs;
  }

  // v1: a tmpfs at `root` with one cgroup mount per entry of `hierarchies` (co-mounts such as
  // "cpu,cpuacct" also get a symlink per controller) and name=systemd; `hybrid` adds an empty
  // cgroup2 at root/unified, as on this project's build machines.
  static std::shared_ptr<FakeCgroupOs> v1(const std::string& root = "/sys/fs/cgroup",
                                          std::vector<std::string> hierarchies = {"cpu,cpuacct",
                                                                                  "memory", "pids",
                                                                                  "freezer",
                                                                                  "devices"},
                                          bool hybrid = false) {
    auto fs = std::make_shared<FakeCgroupOs>();
    fs->add_dir_node(parent_of(root));
    fs->mount(root, FsType::kOther, {});
    for (const std::string& h : hierarchies) {
      fs->mount(root + "/" + h, FsType::kCgroup1, split(h, ','));
      if (h.find(',') != std::string::npos) {
        for (const std::string& c : split(h, ',')) fs->symlinks[root + "/" + c] = root + "/" + h;
      }
    }
    fs->mount(root + "/systemd", FsType::kCgroup1, {});
    if (hybrid) {
      fs->mount(root + "/unified", FsType::kCgroup2, {});
      fs->set(root + "/unified/cgroup.controllers", "");
    }
    return fs;
  }

  // ---- test helpers -------------------------------------------------------------------------

  bool has(const std::string& path) const { return nodes.count(resolve(path)) > 0; }
  std::string file(const std::string& path) const {
    auto it = nodes.find(resolve(path));
    return it == nodes.end() ? "<missing>" : it->second.content;
  }
  void set(const std::string& path, const std::string& content) {
    nodes[resolve(path)] = Node{false, content};
  }
  // Puts `pid` into the cgroup directory `dir` (moving it within that hierarchy).
  void add_process(const std::string& dir, pid_t pid) { move_pid(resolve(dir), pid); }
  std::vector<pid_t> processes(const std::string& dir) const {
    return parse_pids(file(dir + "/cgroup.procs"));
  }

  // ---- CgroupOs ----------------------------------------------------------------------------

  OsRead read(const std::string& p) const override {
    const std::string path = resolve(p);
    auto it = nodes.find(path);
    if (it == nodes.end()) return {"", ENOENT};
    if (it->second.dir) return {"", EISDIR};
    if (base_of(path) == "freezer.state" && freezing_reads > 0) {
      --freezing_reads;
      return {"FREEZING\n", 0};
    }
    return {it->second.content, 0};
  }

  int write(const std::string& p, std::string_view raw) override {
    const std::string path = resolve(p);
    std::string value(raw);
    while (!value.empty() && value.back() == '\n') value.pop_back();
    write_log.emplace_back(path, value);
    auto it = nodes.find(path);
    if (it == nodes.end()) return ENOENT;
    if (it->second.dir) return EISDIR;
    if (auto e = write_errors.find(path); e != write_errors.end()) return e->second;
    const std::string dir = parent_of(path), name = base_of(path);
    const Mount* m = mount_of(path);
    const bool v2 = m && m->type == FsType::kCgroup2;
    if (name == "cgroup.procs") {
      long pid = std::atol(value.c_str());
      if (pid <= 0) return EINVAL;
      if (v2 && dir != m->path && !file(dir + "/cgroup.subtree_control").empty()) return EBUSY;
      move_pid(dir, static_cast<pid_t>(pid));
      return 0;
    }
    if (v2 && name == "cgroup.subtree_control") return write_subtree_control(dir, value);
    if (v2 && name == "cgroup.kill") {
      if (value != "1") return EINVAL;
      for (pid_t pid : pids_below(dir)) kill(pid, SIGKILL);
      return 0;
    }
    if (v2 && name == "cgroup.freeze") {
      it->second.content = value;
      set(dir + "/cgroup.events", std::string("populated 0\nfrozen ") + (value == "1" ? "1" : "0"));
      return 0;
    }
    if (name == "memory.limit_in_bytes" && value != "-1") {
      const long long usage = std::atoll(file(dir + "/memory.usage_in_bytes").c_str());
      if (std::atoll(value.c_str()) < usage) return EBUSY;
    }
    it->second.content = value;
    return 0;
  }

  int make_dir(const std::string& p) override {
    const std::string path = resolve(p);
    if (nodes.count(path)) return EEXIST;
    auto parent = nodes.find(parent_of(path));
    if (parent == nodes.end() || !parent->second.dir) return ENOENT;
    add_dir_node(path);
    const Mount* m = mount_of(path);
    if (!m) return 0;
    if (m->type == FsType::kCgroup1) {
      add_v1_files(path, m->controllers, /*root=*/false);
    } else if (m->type == FsType::kCgroup2) {
      add_v2_files(path, split(file(parent_of(path) + "/cgroup.subtree_control"), ' '));
    }
    return 0;
  }

  int remove_dir(const std::string& p) override {
    const std::string path = resolve(p);
    auto it = nodes.find(path);
    if (it == nodes.end()) return ENOENT;
    if (!it->second.dir) return ENOTDIR;
    if (!list_dirs(path).names.empty() || !processes(path).empty()) return EBUSY;
    if (auto b = busy_rmdirs.find(path); b != busy_rmdirs.end() && b->second > 0) {
      --b->second;
      return EBUSY;
    }
    const std::string prefix = path + "/";
    for (auto n = nodes.begin(); n != nodes.end();) {
      n = n->first == path || n->first.starts_with(prefix) ? nodes.erase(n) : std::next(n);
    }
    removed.push_back(path);
    return 0;
  }

  bool exists(const std::string& p) const override { return nodes.count(resolve(p)) > 0; }

  OsList list_dirs(const std::string& p) const override {
    const std::string path = resolve(p);
    auto it = nodes.find(path);
    if (it == nodes.end()) return {{}, ENOENT};
    if (!it->second.dir) return {{}, ENOTDIR};
    std::set<std::string> names;
    const std::string prefix = path + "/";
    for (const auto& [name, node] : nodes) {
      if (node.dir && name.starts_with(prefix) &&
          name.find('/', prefix.size()) == std::string::npos)
        names.insert(name.substr(prefix.size()));
    }
    for (const auto& [link, target] : symlinks) {
      if (parent_of(link) == path && nodes.count(target)) names.insert(base_of(link));
    }
    return {{names.begin(), names.end()}, 0};
  }

  FsType fs_type(const std::string& p) const override {
    const std::string path = resolve(p);
    if (!nodes.count(path)) return FsType::kMissing;
    const Mount* m = mount_of(path);
    return m ? m->type : FsType::kOther;
  }

  std::string canonical(const std::string& p) const override { return resolve(p); }

  int kill(pid_t pid, int signal) override {
    signals.emplace_back(pid, signal);
    bool found = false;
    for (auto& [name, node] : nodes) {
      if (node.dir || base_of(name) != "cgroup.procs") continue;
      auto pids = parse_pids(node.content);
      if (std::find(pids.begin(), pids.end(), pid) == pids.end()) continue;
      found = true;
      if (kill_removes) node.content = join_pids(without(pids, pid));
    }
    return found ? 0 : ESRCH;
  }

  void sleep_for(std::chrono::milliseconds) override { ++sleeps; }

  // ---- state, open to tests ------------------------------------------------------------------

  struct Node {
    bool dir = false;
    std::string content;
  };
  struct Mount {
    std::string path;
    FsType type;
    std::vector<std::string> controllers;  // v1 only
  };
  std::map<std::string, Node> nodes;
  std::vector<Mount> mounts;
  std::map<std::string, std::string> symlinks;  // absolute link -> absolute target
  bool with_kill = true;                        // v2 cgroup.kill files
  bool kill_removes = true;                     // killed processes vanish at once
  std::map<std::string, int> write_errors;
  std::map<std::string, int> busy_rmdirs;
  mutable int freezing_reads = 0;
  std::vector<std::pair<std::string, std::string>> write_log;
  std::vector<std::pair<pid_t, int>> signals;
  std::vector<std::string> removed;
  int sleeps = 0;

 private:
  static std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::stringstream in(s);
    std::string part;
    while (std::getline(in, part, sep)) {
      if (!part.empty()) out.push_back(part);
    }
    return out;
  }
  static std::string join(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v) out += (out.empty() ? "" : " ") + s;
    return out;
  }
  static std::string parent_of(const std::string& p) { return p.substr(0, p.rfind('/')); }
  static std::string base_of(const std::string& p) { return p.substr(p.rfind('/') + 1); }
  static std::vector<pid_t> parse_pids(const std::string& s) {
    std::vector<pid_t> out;
    for (const auto& line : split(s, '\n'))
      out.push_back(static_cast<pid_t>(std::atol(line.c_str())));
    return out;
  }
  static std::string join_pids(const std::vector<pid_t>& pids) {
    std::string out;
    for (pid_t pid : pids) out += std::to_string(pid) + "\n";
    return out;
  }
  static std::vector<pid_t> without(std::vector<pid_t> pids, pid_t pid) {
    pids.erase(std::remove(pids.begin(), pids.end(), pid), pids.end());
    return pids;
  }

  std::string resolve(const std::string& path) const {
    for (const auto& [link, target] : symlinks) {
      if (path == link) return target;
      if (path.starts_with(link + "/")) return target + path.substr(link.size());
    }
    return path;
  }

  const Mount* mount_of(const std::string& path) const {
    const Mount* best = nullptr;
    for (const Mount& m : mounts) {
      if ((path == m.path || path.starts_with(m.path + "/")) &&
          (!best || m.path.size() > best->path.size()))
        best = &m;
    }
    return best;
  }

  void add_dir_node(const std::string& path) {
    for (std::string p = path; !p.empty() && !nodes.count(p); p = parent_of(p))
      nodes[p] = Node{true, ""};
  }

  void mount(const std::string& path, FsType type, std::vector<std::string> controllers) {
    add_dir_node(path);
    mounts.push_back({path, type, controllers});
    if (type == FsType::kCgroup1) add_v1_files(path, controllers, /*root=*/true);
    if (type == FsType::kCgroup2) {
      set(path + "/cgroup.procs", "");
      set(path + "/cgroup.subtree_control", "");
      set(path + "/cpu.stat", "usage_usec 0\nuser_usec 0\nsystem_usec 0\n");
    }
  }

  void add_v1_files(const std::string& dir, const std::vector<std::string>& controllers,
                    bool root) {
    set(dir + "/cgroup.procs", "");
    set(dir + "/tasks", "");
    set(dir + "/notify_on_release", "0");
    for (const std::string& c : controllers) {
      if (c == "cpu") {
        set(dir + "/cpu.shares", "1024");
        set(dir + "/cpu.cfs_period_us", "100000");
        set(dir + "/cpu.cfs_quota_us", "-1");
      } else if (c == "cpuacct") {
        set(dir + "/cpuacct.usage", "0");
      } else if (c == "memory") {
        set(dir + "/memory.limit_in_bytes", "9223372036854771712");
        set(dir + "/memory.usage_in_bytes", "0");
        set(dir + "/memory.stat", "cache 0\ninactive_file 0\ntotal_inactive_file 0\n");
        set(dir + "/memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n");
      } else if (c == "pids") {
        set(dir + "/pids.max", "max");
        set(dir + "/pids.current", "0");
      } else if (c == "freezer" && !root) {
        set(dir + "/freezer.state", "THAWED");
      }
    }
  }

  void add_controller_files_v2(const std::string& dir, const std::string& c) {
    if (c == "cpu") {
      if (!has(dir + "/cpu.weight")) set(dir + "/cpu.weight", "100");
      if (!has(dir + "/cpu.max")) set(dir + "/cpu.max", "max 100000");
    } else if (c == "memory") {
      if (!has(dir + "/memory.max")) set(dir + "/memory.max", "max");
      if (!has(dir + "/memory.current")) set(dir + "/memory.current", "0");
      if (!has(dir + "/memory.stat")) set(dir + "/memory.stat", "anon 0\ninactive_file 0\n");
      if (!has(dir + "/memory.events"))
        set(dir + "/memory.events", "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n");
    } else if (c == "pids") {
      if (!has(dir + "/pids.max")) set(dir + "/pids.max", "max");
      if (!has(dir + "/pids.current")) set(dir + "/pids.current", "0");
    }
  }

  void add_v2_files(const std::string& dir, const std::vector<std::string>& controllers) {
    set(dir + "/cgroup.procs", "");
    set(dir + "/cgroup.controllers", join(controllers));
    set(dir + "/cgroup.subtree_control", "");
    set(dir + "/cgroup.events", "populated 0\nfrozen 0\n");
    set(dir + "/cgroup.freeze", "0");
    if (with_kill) set(dir + "/cgroup.kill", "");
    set(dir + "/cpu.stat", "usage_usec 0\nuser_usec 0\nsystem_usec 0\n");
    for (const std::string& c : controllers) add_controller_files_v2(dir, c);
  }

  int write_subtree_control(const std::string& dir, const std::string& value) {
    const auto available = split(file(dir + "/cgroup.controllers"), ' ');
    auto enabled = split(file(dir + "/cgroup.subtree_control"), ' ');
    const Mount* m = mount_of(dir);
    if (dir != m->path && !processes(dir).empty()) return EBUSY;  // no internal processes
    for (const std::string& change : split(value, ' ')) {
      const std::string c = change.substr(1);
      if (change[0] != '+' && change[0] != '-') return EINVAL;
      if (std::find(available.begin(), available.end(), c) == available.end()) return ENOENT;
      enabled.erase(std::remove(enabled.begin(), enabled.end(), c), enabled.end());
      if (change[0] == '+') enabled.push_back(c);
    }
    std::sort(enabled.begin(), enabled.end());
    set(dir + "/cgroup.subtree_control", join(enabled));
    for (const std::string& child : list_dirs(dir).names) {
      set(dir + "/" + child + "/cgroup.controllers", join(enabled));
      for (const std::string& c : enabled) add_controller_files_v2(dir + "/" + child, c);
    }
    return 0;
  }

  // Moves `pid` into `dir`'s cgroup.procs, out of every other cgroup of the same hierarchy.
  void move_pid(const std::string& dir, pid_t pid) {
    const Mount* m = mount_of(dir);
    for (auto& [name, node] : nodes) {
      if (node.dir || base_of(name) != "cgroup.procs" || mount_of(name) != m) continue;
      node.content = join_pids(without(parse_pids(node.content), pid));
    }
    auto procs = parse_pids(file(dir + "/cgroup.procs"));
    procs.push_back(pid);
    set(dir + "/cgroup.procs", join_pids(procs));
  }

  std::vector<pid_t> pids_below(const std::string& dir) const {
    std::vector<pid_t> out;
    const std::string prefix = dir + "/";
    for (const auto& [name, node] : nodes) {
      if (!node.dir && base_of(name) == "cgroup.procs" && name.starts_with(prefix)) {
        auto pids = parse_pids(node.content);
        out.insert(out.end(), pids.begin(), pids.end());
      }
    }
    return out;
  }
};

}  // namespace k3c::testing
