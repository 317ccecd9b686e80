// exec_in_container and spawn_exec_helper: runs `k3c shim exec` (shim_exec.cpp), for exec_sync
// collecting its output with a deadline (see container_process.h).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "runtime/files.h"
#include "runtime/shim/container_init.h"
#include "runtime/shim/container_process.h"
#include "runtime/shim/exec_helper.h"
#include "runtime/shim/spawn_shim.h"
#include "runtime/shim/state_files.h"

namespace k3c::runtime {
namespace {

using namespace shim;

constexpr size_t kMaxOutput = 1 << 20;  // per stream; the rest is read and dropped

struct Pipe {
  int read = -1, write = -1;
  ~Pipe() {
    if (read >= 0) close(read);
    if (write >= 0) close(write);
  }
  Status open() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return errno_status("pipe", errno);
    read = fds[0];
    write = fds[1];
    return Status::ok();
  }
  void close_write() {
    close(write);
    write = -1;
  }
};

Status write_all_to(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno_status("write the exec spec", errno);
    done += static_cast<size_t>(n);
  }
  return Status::ok();
}

}  // namespace

namespace shim {

Result<ExecHelper> spawn_exec_helper(const std::string& state_dir, const ProcessSpec& process,
                                     const std::vector<std::pair<int, int>>& fds) {
  ASSIGN_OR_RETURN(ProcessState state, read_process_state(state_dir));
  if (state.exited) return error(Code::kConflict, "the container is not running");
  ASSIGN_OR_RETURN(LaunchSpec spec, read_launch_spec(state_dir));
  if (process.args.empty()) return error(Code::kInvalid, "no command to run");
  Pipe spec_pipe, report;
  for (Pipe* p : {&spec_pipe, &report}) RETURN_IF_ERROR(p->open());
  std::vector<std::pair<int, int>> mapped = {{spec_pipe.read, 3}, {report.write, 4}};
  mapped.insert(mapped.end(), fds.begin(), fds.end());
  ASSIGN_OR_RETURN(pid_t pid,
                   spawn_shim(spec.shim_binary, {"k3c", "shim", "exec", state_dir}, mapped, false));
  report.close_write();
  // The helper reads the whole spec before anything else, so this cannot deadlock.
  const Status sent = write_all_to(spec_pipe.write, encode_process_spec(process));
  spec_pipe.close_write();
  if (!sent.is_ok()) {
    kill(pid, SIGKILL);
    wait_exit_code(pid);
    return sent;
  }
  ExecHelper helper;
  helper.pid = pid;
  helper.report = internal::Fd(report.read);
  report.read = -1;
  return helper;
}

}  // namespace shim

Result<ExecResult> exec_in_container(const std::string& state_dir, const ProcessSpec& process,
                                     std::chrono::milliseconds timeout) {
  Pipe out, err;
  for (Pipe* p : {&out, &err}) RETURN_IF_ERROR(p->open());
  ASSIGN_OR_RETURN(ExecHelper helper,
                   spawn_exec_helper(state_dir, process, {{out.write, 1}, {err.write, 2}}));
  for (Pipe* p : {&out, &err}) p->close_write();
  const pid_t pid = helper.pid;
  ExecResult result;
  std::string report_bytes;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  struct Stream {
    int fd;
    std::string* sink;
    size_t limit;
  } streams[3] = {{out.read, &result.stdout_bytes, kMaxOutput},
                  {err.read, &result.stderr_bytes, kMaxOutput},
                  {helper.report.get(), &report_bytes, 64 * 1024}};
  bool open[3] = {true, true, true};
  char buf[16 * 1024];
  while (open[0] || open[1] || open[2]) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      kill(pid, SIGKILL);  // its child dies with it (PR_SET_PDEATHSIG)
      break;
    }
    pollfd fds[3];
    for (int i = 0; i < 3; ++i) fds[i] = {open[i] ? streams[i].fd : -1, POLLIN, 0};
    if (poll(fds, 3, static_cast<int>(left.count())) < 0 && errno != EINTR) break;
    for (int i = 0; i < 3; ++i) {
      if (!fds[i].revents) continue;
      const ssize_t n = read(streams[i].fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        open[i] = false;
        continue;
      }
      const size_t room = streams[i].limit - std::min(streams[i].limit, streams[i].sink->size());
      streams[i].sink->append(buf, std::min(room, static_cast<size_t>(n)));
    }
  }
  const int exit_code = wait_exit_code(pid);
  if (result.timed_out) {
    result.exit_code = exit_code;
    return result;
  }
  if (report_bytes != "ok\n") {
    if (report_bytes.empty()) {
      return error(Code::kInternal, "the exec helper exited (" + std::to_string(exit_code) +
                                        ") without reporting: " + result.stderr_bytes);
    }
    return parse_child_error(report_bytes);
  }
  result.exit_code = exit_code;
  return result;
}

}  // namespace k3c::runtime
