#include "runtime/linux/stop_signal.h"

#include <charconv>
#include <csignal>
#include <string>

namespace k3c::runtime {

std::optional<int> signal_number(std::string_view name) {
  if (name.empty()) return std::nullopt;
  int number = 0;
  if (auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), number);
      ec == std::errc() && end == name.data() + name.size()) {
    if (number > 0 && number <= SIGRTMAX) return number;
    return std::nullopt;
  }
  if (name.substr(0, 3) == "SIG") name.remove_prefix(3);
  static constexpr std::pair<std::string_view, int> kSignals[] = {
      {"HUP", SIGHUP},       {"INT", SIGINT},   {"QUIT", SIGQUIT},     {"ILL", SIGILL},
      {"TRAP", SIGTRAP},     {"ABRT", SIGABRT}, {"IOT", SIGIOT},       {"BUS", SIGBUS},
      {"FPE", SIGFPE},       {"KILL", SIGKILL}, {"USR1", SIGUSR1},     {"SEGV", SIGSEGV},
      {"USR2", SIGUSR2},     {"PIPE", SIGPIPE}, {"ALRM", SIGALRM},     {"TERM", SIGTERM},
      {"STKFLT", SIGSTKFLT}, {"CHLD", SIGCHLD}, {"CONT", SIGCONT},     {"STOP", SIGSTOP},
      {"TSTP", SIGTSTP},     {"TTIN", SIGTTIN}, {"TTOU", SIGTTOU},     {"URG", SIGURG},
      {"XCPU", SIGXCPU},     {"XFSZ", SIGXFSZ}, {"VTALRM", SIGVTALRM}, {"PROF", SIGPROF},
      {"WINCH", SIGWINCH},   {"IO", SIGIO},     {"POLL", SIGPOLL},     {"PWR", SIGPWR},
      {"SYS", SIGSYS}};
  for (auto [signal_name, value] : kSignals)
    if (signal_name == name) return value;
  for (std::string_view base : {"RTMIN", "RTMAX"}) {
    if (name.substr(0, base.size()) != base) continue;
    const int anchor = base == "RTMIN" ? SIGRTMIN : SIGRTMAX;
    std::string_view rest = name.substr(base.size());
    if (rest.empty()) return anchor;
    int offset = 0;
    auto [end, ec] = std::from_chars(rest.data() + 1, rest.data() + rest.size(), offset);
    if (ec != std::errc() || end != rest.data() + rest.size()) return std::nullopt;
    int value = rest[0] == '+' ? anchor + offset : rest[0] == '-' ? anchor - offset : -1;
    if (value >= SIGRTMIN && value <= SIGRTMAX) return value;
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace k3c::runtime
