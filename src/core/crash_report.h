// A report on stderr when the process dies of a fatal signal (SIGSEGV, SIGBUS, SIGILL,
// SIGFPE, SIGABRT): the signal, the faulting address, the thread, and the backtrace as
// offsets into the executable, symbolized to function, file and line by addr2line when it
// is installed. A crash on a user's box or in CI then says where it happened; without it
// only the kernel's one-line note in dmesg does.
//
// Afterwards the signal takes its default action, so the exit status (and any core dump)
// are what they would have been.
#pragma once

namespace k3c::crash_report {

// Installs the handler for the whole process, and an alternate signal stack for the
// calling thread. Call once, early in main(), before threads start.
void install();

}  // namespace k3c::crash_report
