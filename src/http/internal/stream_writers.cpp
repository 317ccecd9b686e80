#include "http/internal/stream_writers.h"

#include <fcntl.h>
#include <openssl/err.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "core/thread_set.h"

namespace k3c::http::internal {

namespace {

using SteadyClock = std::chrono::steady_clock;
constexpr std::string_view kLastChunk = "0\r\n\r\n";
constexpr uint32_t kReadEvents = EPOLLIN | EPOLLRDHUP;

// One adopted stream. Touched only by its thread, but for `queued`.
struct Stream {
  int fd = -1;
  SSL* ssl = nullptr;
  std::shared_ptr<BodyStream> body;
  StreamWriters::Done done;
  // What the last poll gave and is not framed yet (from `next_piece` on), and whether the
  // body ended with it. It is framed a bounded batch at a time: a watch's initial events can
  // be many megabytes, and a copy of them all would double what the stream holds.
  BodyStream::Chunk polled;
  size_t next_piece = 0;
  std::string out;                // framed bytes not yet written
  size_t sent = 0;                // of `out`
  bool waiting_writable = false;  // EPOLLOUT asked for: the socket's buffer was full
  SteadyClock::time_point blocked_since;
  bool finished = false;
  std::atomic<bool> queued{false};  // on the ready list already
};

// A thread's ready list, shared with the streams' wake-up callbacks, which may run after the
// thread is gone.
struct ReadyList {
  ReadyList() : event_fd(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}
  ~ReadyList() {
    if (event_fd >= 0) close(event_fd);
  }
  const int event_fd;
  std::mutex mu;  // guards the fields below
  std::vector<std::shared_ptr<Stream>> ready;
  bool sleeping = false;  // the thread waits in epoll_wait: a push must kick it
  bool stopped = false;

  void push(std::shared_ptr<Stream> s) {
    if (s->queued.exchange(true)) return;
    bool kick;
    {
      std::lock_guard lock(mu);
      if (stopped) return;
      ready.push_back(std::move(s));
      kick = sleeping;
      sleeping = false;
    }
    if (kick) {
      uint64_t one = 1;
      [[maybe_unused]] ssize_t n = write(event_fd, &one, sizeof one);
    }
  }
};

// Frames pieces of `s.polled` from s.next_piece on as one HTTP/1.1 chunk (its size in hex,
// CRLF, the pieces, CRLF) into s.out: at least one piece, and more while the chunk stays
// under kBatch.
void frame_next(Stream& s) {
  constexpr size_t kBatch = 64 << 10;
  const auto& pieces = s.polled.pieces;
  size_t end = s.next_piece, size = 0;
  do {
    size += pieces[end]->size();
    ++end;
  } while (end < pieces.size() && size + pieces[end]->size() <= kBatch);
  char head[24];
  int n = std::snprintf(head, sizeof head, "%zx\r\n", size);
  s.out.reserve(static_cast<size_t>(n) + size + 2 + kLastChunk.size());
  s.out.append(head, static_cast<size_t>(n));
  for (size_t i = s.next_piece; i < end; ++i) s.out += *pieces[i];
  s.out += "\r\n";
  s.next_piece = end;
}

}  // namespace

class StreamWriters::Thread {
 public:
  // Started only when its descriptors could be made (out of file descriptors, it is not).
  explicit Thread(const Options& options)
      : options_(options), epoll_fd_(epoll_create1(EPOLL_CLOEXEC)) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = nullptr;  // the ready list's eventfd
    if (epoll_fd_ < 0 || list_->event_fd < 0 ||
        epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, list_->event_fd, &ev) != 0) {
      stopping_ = true;
      return;
    }
    thread_ = std::thread([this] { run(); });
  }
  ~Thread() {
    stop();
    if (epoll_fd_ >= 0) close(epoll_fd_);
  }

  // False once stopped, or when it never started: adopt() refuses then.
  bool usable() {
    std::lock_guard lock(streams_mu_);
    return !stopping_;
  }

  bool adopt(const std::shared_ptr<Stream>& s) {
    {
      std::lock_guard lock(streams_mu_);
      if (stopping_) return false;
      streams_[s.get()] = s;
    }
    s->body->set_wake([list = list_, weak = std::weak_ptr<Stream>(s)] {
      if (auto p = weak.lock()) list->push(std::move(p));
    });
    epoll_event ev{};
    ev.events = kReadEvents;
    ev.data.ptr = s.get();
    if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, s->fd, &ev) != 0) {
      std::lock_guard lock(streams_mu_);
      streams_.erase(s.get());
      return false;
    }
    list_->push(s);  // the first poll: what the body had before the wake-up was set
    return true;
  }

  void stop() {
    {
      std::lock_guard lock(streams_mu_);
      stopping_ = true;
    }
    {
      std::lock_guard lock(list_->mu);
      list_->stopped = true;
    }
    uint64_t one = 1;
    if (list_->event_fd >= 0) {
      [[maybe_unused]] ssize_t n = write(list_->event_fd, &one, sizeof one);
    }
    if (thread_.joinable()) thread_.join();
  }

 private:
  void run() {
    name_this_thread("https-stream");
    // A write to a socket the client closed fails with EPIPE instead of killing the process
    // (OpenSSL's socket BIO writes without MSG_NOSIGNAL).
    sigset_t pipe;
    sigemptyset(&pipe);
    sigaddset(&pipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe, nullptr);
    std::vector<epoll_event> events(256);
    std::vector<std::shared_ptr<Stream>> ready;
    auto next_tick = SteadyClock::now() + options_.tick;
    while (true) {
      ready.clear();
      {
        std::lock_guard lock(list_->mu);
        if (list_->stopped) break;
        ready.swap(list_->ready);
        list_->sleeping = ready.empty();
      }
      int timeout_ms = 0;
      if (ready.empty()) {
        auto left = std::chrono::ceil<std::chrono::milliseconds>(next_tick - SteadyClock::now());
        timeout_ms = static_cast<int>(std::max<int64_t>(0, left.count()));
      }
      int n = epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()), timeout_ms);
      if (n < 0 && errno != EINTR) break;  // cannot wait any more: its streams end below
      if (ready.empty()) {
        std::lock_guard lock(list_->mu);
        list_->sleeping = false;
      }
      for (int i = 0; i < n; ++i) {
        auto* s = static_cast<Stream*>(events[i].data.ptr);
        if (!s) {
          uint64_t count;
          [[maybe_unused]] ssize_t r = read(list_->event_fd, &count, sizeof count);
          continue;
        }
        if (s->finished) continue;
        if (events[i].events & (EPOLLERR | EPOLLHUP | EPOLLRDHUP)) {
          finish(*s, false);
          continue;
        }
        if (events[i].events & EPOLLIN) read_client(*s);
        if (!s->finished && (events[i].events & EPOLLOUT)) service(*s);
      }
      for (auto& s : ready) {
        s->queued = false;  // before the poll: a wake-up from now on queues it again
        service(*s);
      }
      if (SteadyClock::now() >= next_tick) {
        tick();
        next_tick = SteadyClock::now() + options_.tick;
      }
      // Freed only now: an event of this round may still have named a stream finished in it.
      finished_.clear();
    }
    std::vector<std::shared_ptr<Stream>> left;
    {
      std::lock_guard lock(streams_mu_);
      stopping_ = true;  // no stream is adopted from now on
      for (auto& [raw, s] : streams_) left.push_back(s);
    }
    for (auto& s : left) finish(*s, false);
    finished_.clear();
  }

  // Writes what the body gave, polling it once all of that is out; ends the stream after
  // the body ended and the last chunk went.
  void service(Stream& s) {
    if (s.finished) return;
    bool polled = false;
    while (flush(s)) {
      if (s.next_piece < s.polled.pieces.size()) {
        frame_next(s);
        continue;
      }
      if (s.polled.ended) {
        if (s.next_piece != SIZE_MAX) {
          s.out = kLastChunk;
          s.next_piece = SIZE_MAX;  // the last chunk is framed
          continue;
        }
        finish(s, true);
        return;
      }
      if (polled) return;  // everything it gave is written
      s.polled = s.body->poll();
      s.next_piece = 0;
      polled = true;
    }
  }

  // Writes s.out; true when all of it is written, false when the socket is full (EPOLLOUT
  // asked for) or the write failed (the stream finished).
  bool flush(Stream& s) {
    // The thread's error queue is emptied after a failed call, not before every call:
    // SSL_get_error needs it empty, and only these calls fill it on this thread.
    while (s.sent < s.out.size()) {
      int n = SSL_write(s.ssl, s.out.data() + s.sent,
                        static_cast<int>(std::min<size_t>(s.out.size() - s.sent, INT_MAX)));
      if (n > 0) {
        s.sent += static_cast<size_t>(n);
        continue;
      }
      const int e = SSL_get_error(s.ssl, n);
      ERR_clear_error();
      if (e == SSL_ERROR_WANT_WRITE) {
        if (!s.waiting_writable) {
          s.waiting_writable = true;
          s.blocked_since = SteadyClock::now();
          watch(s, kReadEvents | EPOLLOUT);
        }
        return false;
      }
      finish(s, false);
      return false;
    }
    s.out.clear();
    s.sent = 0;
    if (s.waiting_writable) {
      s.waiting_writable = false;
      watch(s, kReadEvents);
    }
    return true;
  }

  // The client sends nothing on a stream but TLS records of its own (an alert, a key
  // update): read and drop them; the end of its side or an error ends the stream.
  void read_client(Stream& s) {
    char buf[512];
    while (true) {
      int n = SSL_read(s.ssl, buf, sizeof buf);
      if (n > 0) continue;
      const int e = SSL_get_error(s.ssl, n);
      ERR_clear_error();
      if (e != SSL_ERROR_WANT_READ) finish(s, false);
      return;
    }
  }

  // Every stream once per tick: the producers' deadlines, and writes stalled too long.
  void tick() {
    std::vector<std::shared_ptr<Stream>> all;
    {
      std::lock_guard lock(streams_mu_);
      all.reserve(streams_.size());
      for (auto& [raw, s] : streams_) all.push_back(s);
    }
    const auto now = SteadyClock::now();
    for (auto& s : all) {
      if (s->waiting_writable && now - s->blocked_since > options_.write_timeout) {
        finish(*s, false);
      } else {
        service(*s);
      }
    }
  }

  void watch(Stream& s, uint32_t events) {
    epoll_event ev{};
    ev.events = events;
    ev.data.ptr = &s;
    epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, s.fd, &ev);
  }

  void finish(Stream& s, bool ended) {
    if (s.finished) return;
    s.finished = true;
    epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, s.fd, nullptr);
    // The TLS session lets go of the socket: whatever its owner does with it next (Asio's
    // shutdown writes a close_notify) must not reach the descriptor, which is closed after
    // done() and may by then belong to another connection. Quiet: no alert at all.
    BIO* nowhere = BIO_new(BIO_s_null());
    if (nowhere) SSL_set_bio(s.ssl, nowhere, nowhere);
    SSL_set_quiet_shutdown(s.ssl, 1);
    s.body->cancel();
    {
      std::lock_guard lock(streams_mu_);
      auto it = streams_.find(&s);
      if (it != streams_.end()) {
        finished_.push_back(std::move(it->second));
        streams_.erase(it);
      }
    }
    if (auto done = std::move(s.done)) done(ended);
  }

  const Options options_;
  const int epoll_fd_;
  std::shared_ptr<ReadyList> list_ = std::make_shared<ReadyList>();
  std::mutex streams_mu_;  // guards streams_ and stopping_
  std::unordered_map<Stream*, std::shared_ptr<Stream>> streams_;
  bool stopping_ = false;
  std::vector<std::shared_ptr<Stream>> finished_;  // this thread only
  std::thread thread_;
};

StreamWriters::StreamWriters(Options options) : options_(options) {}

StreamWriters::~StreamWriters() { stop(); }

bool StreamWriters::adopt(int fd, SSL* ssl, std::shared_ptr<BodyStream> body, Done done) {
  std::shared_ptr<Thread> thread;
  {
    std::lock_guard lock(mu_);
    if (stopped_) return false;
    // Started with the first stream (most servers never have one); one that could not start
    // or whose wait failed is made again.
    threads_.resize(static_cast<size_t>(std::max(1, options_.threads)));
    auto& slot = threads_[next_++ % threads_.size()];
    if (!slot || !slot->usable()) slot = std::make_shared<Thread>(options_);
    thread = slot;
  }
  int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) return false;
  // The TLS session now reads and writes the socket itself, not Asio's buffers (which the
  // caller has flushed).
  if (SSL_set_fd(ssl, fd) != 1) return false;
  auto s = std::make_shared<Stream>();
  s->fd = fd;
  s->ssl = ssl;
  s->body = std::move(body);
  s->done = std::move(done);
  return thread->adopt(s);
}

void StreamWriters::stop() {
  {
    std::lock_guard lock(mu_);
    if (stopped_) return;
    stopped_ = true;
  }
  for (auto& t : threads_) {
    if (t) t->stop();
  }
}

}  // namespace k3c::http::internal
