// The CRI log format (see cri_log.h).
#include "runtime/shim/cri_log.h"

#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace k3c::runtime {

std::string rfc3339_nano(int64_t unix_nanos) {
  const time_t seconds = static_cast<time_t>(unix_nanos / 1000000000);
  int64_t nanos = unix_nanos % 1000000000;
  struct tm tm {};
  gmtime_r(&seconds, &tm);
  char buf[64];
  size_t n = strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  if (nanos != 0) {
    char frac[16];
    snprintf(frac, sizeof frac, ".%09lld", static_cast<long long>(nanos));
    size_t len = strlen(frac);
    while (frac[len - 1] == '0') --len;  // Go's ".999999999" layout drops trailing zeros
    memcpy(buf + n, frac, len);
    n += len;
  }
  buf[n++] = 'Z';
  return std::string(buf, n);
}

void CriLogStream::feed(std::string_view bytes, int64_t unix_nanos) {
  while (!bytes.empty()) {
    const size_t newline = bytes.find('\n');
    const size_t take = newline == std::string_view::npos ? bytes.size() : newline;
    const size_t room = kMaxLine - used_;
    if (take >= room && !(take == room && newline != std::string_view::npos)) {
      // The line does not fit: what fits goes out as a partial record.
      memcpy(line_ + used_, bytes.data(), room);
      write_record(std::string_view(line_, kMaxLine), true, unix_nanos);
      used_ = 0;
      bytes.remove_prefix(room);
      continue;
    }
    memcpy(line_ + used_, bytes.data(), take);
    used_ += take;
    if (newline == std::string_view::npos) return;  // wait for the rest of the line
    write_record(std::string_view(line_, used_), false, unix_nanos);
    used_ = 0;
    bytes.remove_prefix(take + 1);
  }
}

void CriLogStream::finish(int64_t unix_nanos) {
  if (used_ == 0) return;
  write_record(std::string_view(line_, used_), false, unix_nanos);
  used_ = 0;
}

void CriLogStream::write_record(std::string_view content, bool partial, int64_t unix_nanos) {
  if (fd_ < 0) return;
  const std::string stamp = rfc3339_nano(unix_nanos);
  char head[80];
  const int head_len = snprintf(head, sizeof head, "%s %.*s %c ", stamp.c_str(),
                                static_cast<int>(name_.size()), name_.data(), partial ? 'P' : 'F');
  iovec iov[3] = {{head, static_cast<size_t>(head_len)},
                  {const_cast<char*>(content.data()), content.size()},
                  {const_cast<char*>("\n"), 1}};
  // One writev per record on an O_APPEND file, so that stdout and stderr records never mix
  // within a line. A failed write (disk full) loses the record: the container must not block
  // on its log.
  size_t total = static_cast<size_t>(head_len) + content.size() + 1;
  int index = 0;
  while (total > 0 && index < 3) {
    const ssize_t n = writev(fd_, iov + index, 3 - index);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    size_t done = static_cast<size_t>(n);
    total -= done;
    while (index < 3 && done >= iov[index].iov_len) done -= iov[index++].iov_len;
    if (index < 3) {
      iov[index].iov_base = static_cast<char*>(iov[index].iov_base) + done;
      iov[index].iov_len -= done;
    }
  }
}

}  // namespace k3c::runtime
