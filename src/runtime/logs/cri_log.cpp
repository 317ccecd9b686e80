#include "runtime/logs/cri_log.h"

#include <algorithm>

#include "core/ids.h"

namespace k3c::runtime {

std::optional<CriRecord> parse_cri_record(std::string_view line) {
  CriRecord record;
  size_t first = line.find(' ');
  if (first == std::string_view::npos || first == 0) return std::nullopt;
  record.timestamp = line.substr(0, first);
  size_t second = line.find(' ', first + 1);
  if (second == std::string_view::npos) return std::nullopt;
  record.stream = line.substr(first + 1, second - first - 1);
  if (record.stream != "stdout" && record.stream != "stderr") return std::nullopt;
  // The tag: "F" or "P", possibly followed by more ":"-separated tags in future versions.
  size_t third = line.find(' ', second + 1);
  std::string_view tag =
      line.substr(second + 1, (third == std::string_view::npos ? line.size() : third) - second - 1);
  if (tag.empty() || (tag[0] != 'F' && tag[0] != 'P')) return std::nullopt;
  record.partial = tag[0] == 'P';
  record.content = third == std::string_view::npos ? std::string_view() : line.substr(third + 1);
  return record;
}

void LogRenderer::render(std::string_view line, std::string& out) {
  auto record = parse_cri_record(line);
  if (!record) return;
  if (options_.since) {
    auto at = parse_rfc3339(record->timestamp);
    if (at && *at < *options_.since) return;
  }
  std::string text;
  if (options_.timestamps) {
    text.append(record->timestamp);
    text += ' ';
  }
  text.append(record->content);
  if (!record->partial) text += '\n';
  if (options_.limit_bytes) {
    const int64_t room = *options_.limit_bytes - written_;
    if (room <= static_cast<int64_t>(text.size())) {
      text.resize(static_cast<size_t>(std::max<int64_t>(room, 0)));
      exhausted_ = true;
    }
  }
  written_ += static_cast<int64_t>(text.size());
  out += text;
}

std::string LogRenderer::feed(std::string_view bytes) {
  std::string out;
  if (exhausted_) return out;
  pending_.append(bytes);
  size_t start = 0;
  while (!exhausted_) {
    size_t newline = pending_.find('\n', start);
    if (newline == std::string::npos) break;
    render(std::string_view(pending_).substr(start, newline - start), out);
    start = newline + 1;
  }
  pending_.erase(0, start);
  return out;
}

size_t tail_offset(std::string_view contents, int64_t lines) {
  if (lines <= 0) return contents.size();
  // Walk the records backwards; count the F records (each ends one line).
  int64_t seen = 0;
  size_t end = contents.size();
  if (end > 0 && contents[end - 1] == '\n') --end;  // the last record's own newline
  while (end > 0) {
    size_t begin = contents.rfind('\n', end - 1);
    begin = begin == std::string_view::npos ? 0 : begin + 1;
    auto record = parse_cri_record(contents.substr(begin, end - begin));
    if (record && !record->partial) {
      if (seen == lines) return end + 1;  // the line after this one starts the tail
      ++seen;
    }
    if (begin == 0) break;
    end = begin - 1;
  }
  return 0;
}

}  // namespace k3c::runtime
