#include "watch_readers.h"

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <charconv>
#include <mutex>
#include <thread>

#include "bench_report.h"

namespace k3c::bench {
namespace {

// One watch's stream: its TLS session and where its chunked body stands.
struct Watch {
  int watcher = 0;
  int fd = -1;
  SSL* ssl = nullptr;
  std::string in;        // raw body bytes not yet taken apart
  size_t data_left = 0;  // of the current chunk's data
  size_t crlf_left = 0;  // of the CRLF after it
  std::string line;      // the current event line, up to its newline
  bool ended = false;
};

}  // namespace

class WatchReaders::Thread {
 public:
  Thread(const LineHandler& on_line, std::atomic<int>& broken)
      : on_line_(on_line),
        broken_(broken),
        epoll_fd_(epoll_create1(EPOLL_CLOEXEC)),
        stop_fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.ptr = nullptr;
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, stop_fd_, &ev);
    thread_ = std::thread([this] { run(); });
  }
  ~Thread() {
    uint64_t one = 1;
    [[maybe_unused]] ssize_t n = write(stop_fd_, &one, sizeof one);
    thread_.join();
    for (auto& w : watches_) {
      if (w->fd >= 0) close(w->fd);
    }
    close(epoll_fd_);
    close(stop_fd_);
  }

  void add(std::unique_ptr<Watch> w) {
    Watch* raw = w.get();
    {
      std::lock_guard lock(mu_);
      watches_.push_back(std::move(w));
    }
    parse(*raw, now_ns());  // what came with the headers
    if (raw->ended) return;
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLRDHUP;
    ev.data.ptr = raw;
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, raw->fd, &ev);
  }

 private:
  void run() {
    std::vector<epoll_event> events(256);
    std::vector<char> buf(64 << 10);
    while (true) {
      int n = epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()), -1);
      for (int i = 0; i < n; ++i) {
        auto* w = static_cast<Watch*>(events[i].data.ptr);
        if (!w) return;  // stopped
        if (w->ended) continue;
        const int64_t recv = now_ns();
        // Level-triggered: a socket with more to read is reported again, so reading stops
        // once the session holds nothing more (no recv just to hear EAGAIN).
        while (true) {
          int got = SSL_read(w->ssl, buf.data(), static_cast<int>(buf.size()));
          if (got > 0) {
            w->in.append(buf.data(), static_cast<size_t>(got));
            if (SSL_has_pending(w->ssl)) continue;
            break;
          }
          if (SSL_get_error(w->ssl, got) != SSL_ERROR_WANT_READ) end(*w);
          break;
        }
        if (!w->in.empty()) parse(*w, recv);
      }
    }
  }

  // Takes the chunked encoding apart: each chunk's data goes into event lines.
  void parse(Watch& w, int64_t recv) {
    size_t pos = 0;
    const std::string& in = w.in;
    while (!w.ended) {
      if (w.data_left > 0) {
        size_t n = std::min(w.data_left, in.size() - pos);
        if (n == 0) break;
        take(w, std::string_view(in).substr(pos, n), recv);
        pos += n;
        w.data_left -= n;
        if (w.data_left == 0) w.crlf_left = 2;
      } else if (w.crlf_left > 0) {
        size_t n = std::min(w.crlf_left, in.size() - pos);
        if (n == 0) break;
        pos += n;
        w.crlf_left -= n;
      } else {
        size_t eol = in.find("\r\n", pos);
        if (eol == std::string::npos) break;
        size_t size = 0;
        auto [end_of_size, ec] = std::from_chars(in.data() + pos, in.data() + eol, size, 16);
        if (ec != std::errc() || size == 0) {  // the last chunk, or not chunked at all
          end(w);
          break;
        }
        w.data_left = size;
        pos = eol + 2;
      }
    }
    w.in.erase(0, pos);
  }

  void take(Watch& w, std::string_view data, int64_t recv) {
    for (size_t nl; (nl = data.find('\n')) != std::string_view::npos; data.remove_prefix(nl + 1)) {
      if (w.line.empty()) {
        on_line_(w.watcher, data.substr(0, nl), recv);
      } else {
        w.line.append(data.substr(0, nl));
        on_line_(w.watcher, w.line, recv);
        w.line.clear();
      }
    }
    w.line.append(data);
  }

  void end(Watch& w) {
    if (w.ended) return;
    w.ended = true;
    epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, w.fd, nullptr);
    ++broken_;
  }

  const LineHandler& on_line_;
  std::atomic<int>& broken_;
  const int epoll_fd_;
  const int stop_fd_;
  std::mutex mu_;  // guards watches_ (added from other threads)
  std::vector<std::unique_ptr<Watch>> watches_;
  std::thread thread_;
};

WatchReaders::WatchReaders(int threads, LineHandler on_line) : on_line_(std::move(on_line)) {
  for (int i = 0; i < std::max(1, threads); ++i)
    threads_.push_back(std::make_unique<Thread>(on_line_, broken_));
}

WatchReaders::~WatchReaders() { threads_.clear(); }

void WatchReaders::add(int watcher, int fd, SSL* ssl, std::string early) {
  int flags = fcntl(fd, F_GETFL);
  fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  SSL_set_fd(ssl, fd);
  SSL_set_read_ahead(ssl, 1);  // a record in one recv, not its header and then its body
  auto w = std::make_unique<Watch>();
  w->watcher = watcher;
  w->fd = fd;
  w->ssl = ssl;
  w->in = std::move(early);
  threads_[static_cast<size_t>(watcher) % threads_.size()]->add(std::move(w));
}

}  // namespace k3c::bench
