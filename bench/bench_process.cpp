// A benchmark's child process (see bench_process.h).
#include "bench_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

namespace k3c::bench {
namespace {

// One line of /proc/<pid>/status, e.g. "VmRSS:", as its number (kB there).
int64_t status_field_kb(pid_t pid, const std::string& field) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.compare(0, field.size(), field) == 0) return std::stoll(line.substr(field.size()));
  }
  return 0;
}

std::string how_it_ended(int status) {
  return WIFEXITED(status) ? format("exited %d", WEXITSTATUS(status))
                           : format("killed by signal %d", WTERMSIG(status));
}

}  // namespace

std::string tail_of_file(const std::string& path, size_t bytes) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  std::string all = text.str();
  return all.size() > bytes ? all.substr(all.size() - bytes) : all;
}

Status BenchProcess::spawn(const std::vector<std::string>& argv,
                           const std::map<std::string, std::string>& env, const std::string& out,
                           const std::string& err) {
  std::vector<std::string> arg_text = argv, env_text;
  for (const auto& [name, value] : env) env_text.push_back(name + "=" + value);
  std::vector<char*> args, envp;
  for (std::string& a : arg_text) args.push_back(a.data());
  for (std::string& e : env_text) envp.push_back(e.data());
  args.push_back(nullptr);
  envp.push_back(nullptr);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  posix_spawn_file_actions_addopen(&files, STDERR_FILENO, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  const auto t0 = SteadyClock::now();
  const int rc = posix_spawn(&pid_, args[0], &files, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&files);
  if (rc != 0) {
    pid_ = -1;
    return error(Code::kInternal, "cannot start " + argv.at(0) + ": " + strerror(rc));
  }
  spawned_at_ = t0;
  return Status::ok();
}

bool BenchProcess::exited() {
  if (pid_ <= 0) return true;
  if (reaped_) return true;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) != pid_) return false;
  reaped_ = true;
  ended_ = how_it_ended(status);
  return true;
}

int64_t BenchProcess::rss_bytes() const { return status_field_kb(pid_, "VmRSS:") * 1024; }

double BenchProcess::cpu_seconds() const {
  std::ifstream in("/proc/" + std::to_string(pid_) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Fields after the command name (which may hold spaces) start at the last ')'.
  size_t close = text.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(text.substr(close + 2));
  std::string skip;
  for (int i = 3; i < 14; ++i) fields >> skip;  // state .. cmajflt: fields 3 to 13
  double utime = 0, stime = 0;
  fields >> utime >> stime;
  return (utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

std::string BenchProcess::stop(std::chrono::seconds grace) {
  if (pid_ <= 0 || reaped_) return ended_;
  kill(pid_, SIGTERM);
  const auto deadline = SteadyClock::now() + grace;
  int status = 0;
  bool killed = false;
  while (waitpid(pid_, &status, WNOHANG) != pid_) {
    if (!killed && SteadyClock::now() > deadline) {
      kill(pid_, SIGKILL);
      killed = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  reaped_ = true;
  ended_ = how_it_ended(status);
  if (killed)
    ended_ += format(" after ignoring SIGTERM for %lld s", static_cast<long long>(grace.count()));
  return ended_;
}

}  // namespace k3c::bench
