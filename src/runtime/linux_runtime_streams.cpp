// LinuxRuntime's streaming calls (runtime_service.h): exec (an interactive process through
// `k3c shim exec`), attach (the shim's attach socket) and port_forward (a TCP connection
// made inside the sandbox's network namespace).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <thread>

#include "runtime/files.h"
#include "runtime/internal/tree_at.h"
#include "runtime/linux/namespace_pin.h"
#include "runtime/linux/records.h"
#include "runtime/linux_runtime.h"
#include "runtime/shim/container_process.h"

namespace k3c::runtime {
namespace {

constexpr int kDialTimeoutMs = 5000;  // containerd's dialTimeout

// Go's spelling of an errno, as containerd's messages carry it: "connection refused".
std::string go_errno(int err) {
  std::string text = std::strerror(err);
  if (!text.empty()) text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  return text;
}

// A non-blocking TCP connection to `address`, in the calling thread's network namespace;
// errors as Go's net.Dial words them ("dial tcp4 127.0.0.1:80: connect: connection refused").
Result<int> dial(const sockaddr* address, socklen_t length, const std::string& what) {
  internal::Fd fd(socket(address->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (fd.get() < 0) return error(Code::kInternal, "dial " + what + ": socket: " + go_errno(errno));
  if (connect(fd.get(), address, length) != 0) {
    if (errno != EINPROGRESS)
      return error(Code::kInternal, "dial " + what + ": connect: " + go_errno(errno));
    pollfd p{fd.get(), POLLOUT, 0};
    int ready;
    while ((ready = poll(&p, 1, kDialTimeoutMs)) < 0 && errno == EINTR) {
    }
    if (ready == 0) return error(Code::kTimeout, "dial " + what + ": i/o timeout");
    int err = 0;
    socklen_t size = sizeof err;
    if (getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &size) != 0) err = errno;
    if (err != 0) return error(Code::kInternal, "dial " + what + ": connect: " + go_errno(err));
  }
  return fd.release();
}

// localhost:port, IPv4 first and then IPv6, as containerd's dialLocalhost.
Result<int> dial_localhost(uint16_t port, const std::string& namespace_name) {
  sockaddr_in v4{};
  v4.sin_family = AF_INET;
  v4.sin_port = htons(port);
  v4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const std::string p = std::to_string(port);
  auto conn = dial(reinterpret_cast<sockaddr*>(&v4), sizeof v4, "tcp4 127.0.0.1:" + p);
  if (conn.is_ok()) return conn;
  sockaddr_in6 v6{};
  v6.sin6_family = AF_INET6;
  v6.sin6_port = htons(port);
  v6.sin6_addr = in6addr_loopback;
  auto conn6 = dial(reinterpret_cast<sockaddr*>(&v6), sizeof v6, "tcp6 [::1]:" + p);
  if (conn6.is_ok()) return conn6;
  return error(conn.status().code(),
               "failed to connect to localhost:" + p + " inside namespace \"" + namespace_name +
                   "\", IPv4: " + conn.status().message() + " IPv6 " + conn6.status().message());
}

// Runs `dial_localhost` on a thread of its own that joins the network namespace pinned at
// `netns_path` and ends afterwards (so no thread of k3c stays in a pod's namespace); the
// socket keeps the namespace it was made in.
Result<int> dial_in_namespace(const std::string& netns_path, uint16_t port,
                              const std::string& sandbox_id) {
  Result<int> result = error(Code::kInternal, "port-forward: the dialing thread did not run");
  std::thread dialer([&] {
    internal::Fd ns(open(netns_path.c_str(), O_RDONLY | O_CLOEXEC));
    if (ns.get() < 0) {
      result = errno_status("open the network namespace " + netns_path, errno);
      return;
    }
    if (setns(ns.get(), CLONE_NEWNET) != 0) {
      result = errno_status("join the network namespace " + netns_path, errno);
      return;
    }
    result = dial_localhost(port, sandbox_id);
  });
  dialer.join();
  return result;
}

// "NAME=value" replacing an entry of that name, else appended.
void set_env(std::vector<std::string>& env, const std::string& entry) {
  const std::string prefix = entry.substr(0, entry.find('=') + 1);
  for (std::string& e : env) {
    if (e.rfind(prefix, 0) == 0) {
      e = entry;
      return;
    }
  }
  env.push_back(entry);
}

}  // namespace

Result<ContainerRecord> LinuxRuntime::running_container(const std::string& container_id) const {
  const std::string dir = container_dir(container_id);
  ASSIGN_OR_RETURN(ContainerRecord record, records_.container(dir + "/container.json"));
  auto state = read_process_state(process_dir(dir));
  if (!state.is_ok() && state.status().code() != Code::kNotFound) return state.status();
  if (!state.is_ok() || state->pid <= 0) {
    return error(Code::kInvalid, record.start_error.empty()
                                     ? "container is in CONTAINER_CREATED state"
                                     : "container is in CONTAINER_EXITED state");
  }
  if (state->exited) return error(Code::kInvalid, "container is in CONTAINER_EXITED state");
  return record;
}

Result<std::unique_ptr<StreamSession>> LinuxRuntime::exec(const std::string& container_id,
                                                          const std::vector<std::string>& cmd,
                                                          const StreamOptions& options) {
  if (cmd.empty()) return error(Code::kInvalid, "exec needs a command");
  ASSIGN_OR_RETURN(ContainerRecord record, running_container(container_id));
  ASSIGN_OR_RETURN(ProcessSpec process, process_spec(record));
  process.args = cmd;
  if (options.tty) set_env(process.env, "TERM=xterm");  // as containerd's exec
  return start_exec_session(process_dir(container_dir(container_id)), process, options);
}

Result<std::unique_ptr<StreamSession>> LinuxRuntime::attach(const std::string& container_id,
                                                            const StreamOptions& options) {
  ASSIGN_OR_RETURN(ContainerRecord record, running_container(container_id));
  // The container's terminal setting decides the streams, not the request's (as containerd).
  return attach_container(process_dir(container_dir(container_id)), options, record.config.tty);
}

Result<int> LinuxRuntime::port_forward(const std::string& sandbox_id, uint16_t port) {
  const std::string dir = sandbox_dir(sandbox_id);
  ASSIGN_OR_RETURN(SandboxRecord record, records_.sandbox(dir + "/sandbox.json"));
  const std::string netns = record.config.host_network ? "host" : pinned_namespaces(dir).net;
  auto fail = [&](const Status& status) {
    return error(status.code(), "failed to execute portforward in network namespace \"" + netns +
                                    "\": " + status.message());
  };
  if (record.config.host_network) {
    auto conn = dial_localhost(port, sandbox_id);
    return conn.is_ok() ? conn : fail(conn.status());
  }
  if (record.stopped || netns.empty()) {
    return error(Code::kInvalid, "network namespace for sandbox \"" + sandbox_id + "\" is closed");
  }
  auto conn = dial_in_namespace(netns, port, sandbox_id);
  return conn.is_ok() ? conn : fail(conn.status());
}

}  // namespace k3c::runtime
