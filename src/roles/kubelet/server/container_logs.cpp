#include "roles/kubelet/server/container_logs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "api/json_fields.h"
#include "core/ids.h"
#include "http/text_response.h"

namespace k3c::kubelet {
namespace {

using nlohmann::json;

// Upstream's kubelet rotates at 10 MiB; a log is read whole at most this big.
constexpr size_t kMaxLogRead = 64 << 20;
constexpr size_t kFollowChunk = 64 << 10;
constexpr auto kFollowPoll = std::chrono::milliseconds(100);
// How often a follower asks the runtime whether the container has exited.
constexpr int kStateEveryPolls = 5;

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

const json* container_status_of(const json& pod, const std::string& container) {
  const json& status = api::member(pod, "status");
  for (const char* list :
       {"containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"}) {
    for (const json& s : api::member(status, list))
      if (api::text(s, "name") == container) return &s;
  }
  return nullptr;
}

// "k3c://<id>" -> "<id>".
std::string runtime_id(const std::string& container_id) {
  auto sep = container_id.find("://");
  return sep == std::string::npos ? container_id : container_id.substr(sep + 3);
}

Status bad(std::string message) { return error(Code::kBadRequest, std::move(message)); }

// Follows a container's log file. When the kubelet rotates the log (renames it), the shim
// starts a new file at the same path: once the old file is read out, the follower moves on
// to the new one.
class LogFollowStream final : public http::BodyStream {
 public:
  LogFollowStream(runtime::RuntimeService& runtime, std::string id, std::string path, int fd,
                  off_t offset, const runtime::LogOptions& options)
      : runtime_(runtime),
        id_(std::move(id)),
        path_(std::move(path)),
        fd_(fd),
        offset_(offset),
        renderer_(options) {}
  ~LogFollowStream() override {
    cancel();
    ::close(fd_);
  }

  void set_wake(std::function<void()> wake) override {
    watcher_ = std::thread([this, wake = std::move(wake)] { watch(wake); });
  }

  Chunk poll() override {
    Chunk chunk;
    std::string bytes = read_more();
    if (bytes.empty() && switch_to_new_file()) bytes = read_more();
    if (!bytes.empty()) chunk.append(renderer_.feed(bytes));
    std::lock_guard lock(mu_);
    // Ended: the limit is reached, or the container has exited and its log is read out.
    if (renderer_.exhausted() || (exited_ && bytes.empty())) chunk.ended = true;
    return chunk;
  }

  void cancel() override {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    if (watcher_.joinable() && watcher_.get_id() != std::this_thread::get_id()) watcher_.join();
  }

 private:
  std::string read_more() {
    std::string bytes(kFollowChunk, '\0');
    int fd;
    {
      std::lock_guard lock(mu_);
      fd = fd_;
    }
    ssize_t n = ::pread(fd, bytes.data(), bytes.size(), offset_);
    if (n <= 0) return {};
    offset_ += n;
    bytes.resize(static_cast<size_t>(n));
    return bytes;
  }

  // True when the path names another file than the one read (it was rotated away) and the
  // new one is open now, to be read from its start.
  bool switch_to_new_file() {
    struct stat now {
    }, open_file{};
    std::lock_guard lock(mu_);
    if (::stat(path_.c_str(), &now) != 0 || ::fstat(fd_, &open_file) != 0) return false;
    if (now.st_ino == open_file.st_ino && now.st_dev == open_file.st_dev) return false;
    const int next = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (next < 0) return false;
    ::close(fd_);
    fd_ = next;
    offset_ = 0;
    return true;
  }

  // Wakes the connection when the file grew, was rotated, or the container exited.
  void watch(const std::function<void()>& wake) {
    off_t seen = -1;
    ino_t seen_inode = 0;
    for (int round = 0;; ++round) {
      bool exited = false;
      if (round % kStateEveryPolls == 0) {
        auto status = runtime_.container_status(id_);
        exited = !status.is_ok() || status->state == runtime::ContainerState::kExited;
      }
      struct stat st {
      }, at_path{};
      const bool at_path_ok = ::stat(path_.c_str(), &at_path) == 0;
      {
        std::unique_lock lock(mu_);
        const off_t size = ::fstat(fd_, &st) == 0 ? st.st_size : seen;
        // A new file at the path (rotation) counts as a change too.
        const ino_t inode = at_path_ok ? at_path.st_ino : seen_inode;
        if (exited) exited_ = true;
        // Once the container has exited, every round wakes: poll() reads the rest of the
        // file chunk by chunk and ends the stream when nothing is left.
        if (size != seen || inode != seen_inode || exited_) {
          seen = size;
          seen_inode = inode;
          lock.unlock();
          wake();
          lock.lock();
        }
        if (cv_.wait_for(lock, kFollowPoll, [&] { return stopping_; })) return;
      }
    }
  }

  runtime::RuntimeService& runtime_;
  const std::string id_;
  const std::string path_;
  std::mutex mu_;
  int fd_;        // guarded by mu_ (poll() swaps it on rotation)
  off_t offset_;  // only poll() touches it
  runtime::LogRenderer renderer_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool exited_ = false;
  std::thread watcher_;
};

http::Response text_error(int status, const std::string& message) {
  return http::text_response(status, message + "\n");
}

}  // namespace

Result<std::string> log_container_id(const json& pod, const std::string& container, bool previous) {
  const std::string pod_name = api::text(api::member(pod, "metadata"), "name");
  const std::string who = "container " + quoted(container) + " in pod " + quoted(pod_name);
  const json* status = container_status_of(pod, container);
  if (status == nullptr) return bad(who + " is waiting to start - no logs yet");
  const json& state = api::member(*status, "state");
  const json& last_terminated = api::member(api::member(*status, "lastState"), "terminated");
  const std::string last_id = api::text(last_terminated, "containerID");
  if (previous) {
    if (last_id.empty())
      return bad("previous terminated container " + quoted(container) + " in pod " +
                 quoted(pod_name) + " not found");
    return runtime_id(last_id);
  }
  if (const json& running = api::member(state, "running"); running.is_object()) {
    return runtime_id(api::text(*status, "containerID"));
  }
  if (const json& terminated = api::member(state, "terminated"); terminated.is_object()) {
    std::string id = api::text(terminated, "containerID");
    if (id.empty()) id = last_id;
    if (id.empty()) return bad(who + " is terminated");
    return runtime_id(id);
  }
  if (last_terminated.is_object()) {
    if (last_id.empty()) return bad(who + " is terminated");
    return runtime_id(last_id);
  }
  if (const json& waiting = api::member(state, "waiting"); waiting.is_object()) {
    const std::string reason = api::text(waiting, "reason");
    if (reason == "ErrImagePull") return bad(who + " is waiting to start: image can't be pulled");
    if (reason == "ImagePullBackOff")
      return bad(who + " is waiting to start: trying and failing to pull image");
    return bad(who + " is waiting to start: " + reason);
  }
  return bad(who + " is waiting to start - no logs yet");
}

Result<runtime::LogOptions> log_options_of(const http::Request& request) {
  runtime::LogOptions options;
  auto flag = [&](const char* name) {
    auto v = request.param(name);
    return v && (*v == "true" || *v == "1");
  };
  auto integer = [&](const char* name, std::optional<int64_t>& out) -> Status {
    auto v = request.param(name);
    if (!v) return Status::ok();
    int64_t value = 0;
    auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), value);
    if (v->empty() || ec != std::errc() || end != v->data() + v->size())
      return bad("invalid " + std::string(name) + ": " + std::string(*v));
    out = value;
    return Status::ok();
  };
  options.follow = flag("follow");
  options.timestamps = flag("timestamps");
  std::optional<int64_t> since_seconds;
  if (Status s = integer("tailLines", options.tail_lines); !s.is_ok()) return s;
  if (Status s = integer("limitBytes", options.limit_bytes); !s.is_ok()) return s;
  if (Status s = integer("sinceSeconds", since_seconds); !s.is_ok()) return s;
  if (since_seconds) {
    options.since = std::chrono::system_clock::now() - std::chrono::seconds(*since_seconds);
  }
  if (auto since_time = request.param("sinceTime")) {
    options.since = parse_rfc3339(*since_time);
    if (!options.since) return bad("invalid sinceTime: " + std::string(*since_time));
  }
  return options;
}

http::Response container_log_response(runtime::RuntimeService& runtime,
                                      const std::string& container_id,
                                      const runtime::LogOptions& options) {
  auto status = runtime.container_status(container_id);
  if (!status.is_ok()) return text_error(404, status.status().message());
  int fd = ::open(status->log_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    // Nothing written yet: an empty log, or a stream that waits for the first line.
    if (errno != ENOENT) return text_error(500, "open " + status->log_path + " failed");
    http::Response empty;
    empty.set_header("Content-Type", "text/plain");
    return empty;
  }
  struct stat st {};
  off_t size = ::fstat(fd, &st) == 0 ? st.st_size : 0;
  std::string contents(static_cast<size_t>(std::min<off_t>(size, kMaxLogRead)), '\0');
  const off_t start = size - static_cast<off_t>(contents.size());
  ssize_t n = ::pread(fd, contents.data(), contents.size(), start);
  contents.resize(n > 0 ? static_cast<size_t>(n) : 0);
  size_t from = options.tail_lines ? runtime::tail_offset(contents, *options.tail_lines) : 0;
  http::Response response;
  response.set_header("Content-Type", "text/plain");
  if (!options.follow) {
    ::close(fd);
    runtime::LogRenderer renderer(options);
    response.body = renderer.feed(std::string_view(contents).substr(from));
    return response;
  }
  auto stream = std::make_shared<LogFollowStream>(runtime, container_id, status->log_path, fd,
                                                  start + static_cast<off_t>(from), options);
  response.stream = stream;
  return response;
}

}  // namespace k3c::kubelet
