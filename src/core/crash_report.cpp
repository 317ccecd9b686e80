// The fatal-signal report (see crash_report.h). Everything the handler needs is prepared
// by install(); the handler itself only uses async-signal-safe calls (write, fork, execve,
// waitpid) and formats numbers by hand.
#include "core/crash_report.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>

namespace k3c::crash_report {
namespace {

constexpr int kMaxFrames = 64;
constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};

char g_exe[4096];           // the executable's path, for addr2line
uintptr_t g_load_base = 0;  // where the executable is mapped (it is position-independent)
alignas(16) char g_alt_stack[64 * 1024];

void put(const char* s) {
  size_t n = strlen(s);
  while (n > 0) {
    ssize_t w = write(STDERR_FILENO, s, n);
    if (w <= 0) return;
    s += w;
    n -= static_cast<size_t>(w);
  }
}

// "0x1f3a" into `out` (at least 19 bytes).
char* hex(uintptr_t v, char* out) {
  char digits[16];
  int n = 0;
  do {
    digits[n++] = "0123456789abcdef"[v & 0xf];
    v >>= 4;
  } while (v != 0);
  char* p = out;
  *p++ = '0';
  *p++ = 'x';
  while (n > 0) *p++ = digits[--n];
  *p = '\0';
  return out;
}

char* decimal(long v, char* out) {
  char digits[24];
  int n = 0;
  bool negative = v < 0;
  unsigned long u = negative ? 0UL - static_cast<unsigned long>(v) : static_cast<unsigned long>(v);
  do {
    digits[n++] = static_cast<char>('0' + u % 10);
    u /= 10;
  } while (u != 0);
  char* p = out;
  if (negative) *p++ = '-';
  while (n > 0) *p++ = digits[--n];
  *p = '\0';
  return out;
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGSEGV:
      return "SIGSEGV";
    case SIGBUS:
      return "SIGBUS";
    case SIGILL:
      return "SIGILL";
    case SIGFPE:
      return "SIGFPE";
    case SIGABRT:
      return "SIGABRT";
    default:
      return "signal";
  }
}

// Runs addr2line on the offsets; its output goes to stderr. Waits for it.
void symbolize(char offsets[][20], int count) {
  if (g_exe[0] == '\0' || count == 0) return;
  char* argv[kMaxFrames + 8];
  int a = 0;
  argv[a++] = const_cast<char*>("addr2line");
  argv[a++] = const_cast<char*>("-C");
  argv[a++] = const_cast<char*>("-f");
  argv[a++] = const_cast<char*>("-i");
  argv[a++] = const_cast<char*>("-p");
  argv[a++] = const_cast<char*>("-e");
  argv[a++] = g_exe;
  for (int i = 0; i < count; ++i) argv[a++] = offsets[i];
  argv[a] = nullptr;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(STDERR_FILENO, STDOUT_FILENO);
    static char* const env[] = {nullptr};
    execve("/usr/bin/addr2line", argv, env);
    _exit(127);
  }
  if (pid > 0) {
    int status = 0;
    waitpid(pid, &status, 0);
  }
}

// Where the fault happened: that frame is an exact address, not a return address.
uintptr_t faulting_pc(void* context) {
  auto* uc = static_cast<ucontext_t*>(context);
#if defined(__x86_64__)
  return static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return static_cast<uintptr_t>(uc->uc_mcontext.pc);
#else
  (void)uc;
  return 0;
#endif
}

void on_fatal_signal(int sig, siginfo_t* info, void* context) {
  char a[24], b[24];
  put("\nk3c: fatal signal ");
  put(signal_name(sig));
  put(" at address ");
  put(hex(reinterpret_cast<uintptr_t>(info->si_addr), a));
  put(" in thread ");
  put(decimal(static_cast<long>(syscall(SYS_gettid)), b));
  put("\n");

  void* frames[kMaxFrames];
  int n = backtrace(frames, kMaxFrames);
  // Offsets into the executable (addr2line reads those); a frame in a shared library is
  // shown as its absolute address and left out of symbolization. Return addresses point
  // after the call: one byte back lands in the calling line (not so the faulting address).
  const uintptr_t fault = faulting_pc(context);
  static char offsets[kMaxFrames][20];
  int in_exe = 0;
  put("k3c: backtrace (offsets into ");
  put(g_exe);
  put("):\n");
  for (int i = 0; i < n; ++i) {
    auto addr = reinterpret_cast<uintptr_t>(frames[i]);
    Dl_info dl;
    put("  #");
    put(decimal(i, a));
    put(" ");
    if (addr > g_load_base && dladdr(frames[i], &dl) != 0 &&
        reinterpret_cast<uintptr_t>(dl.dli_fbase) == g_load_base) {
      hex(addr - g_load_base - (addr == fault ? 0 : 1), offsets[in_exe]);
      put(offsets[in_exe++]);
    } else {
      put(hex(addr, a));
      put(" (outside the executable)");
    }
    put("\n");
  }
  put("k3c: symbolized (addr2line):\n");
  symbolize(offsets, in_exe);

  // The default action now: the exit status and core dump are as without this handler.
  signal(sig, SIG_DFL);
  raise(sig);
}

int find_executable(dl_phdr_info* info, size_t, void*) {
  // The first object listed is the executable itself.
  g_load_base = info->dlpi_addr;
  return 1;
}

}  // namespace

void install() {
  ssize_t n = readlink("/proc/self/exe", g_exe, sizeof g_exe - 1);
  g_exe[n > 0 ? n : 0] = '\0';
  dl_iterate_phdr(find_executable, nullptr);
  // backtrace() loads libgcc on first use, which allocates: do that now, not in the handler.
  void* warm[1];
  backtrace(warm, 1);

  stack_t alt{};
  alt.ss_sp = g_alt_stack;
  alt.ss_size = sizeof g_alt_stack;
  sigaltstack(&alt, nullptr);

  struct sigaction action {};
  action.sa_sigaction = on_fatal_signal;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  for (int sig : kSignals) sigaction(sig, &action, nullptr);
}

}  // namespace k3c::crash_report
