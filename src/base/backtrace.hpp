// src/base/backtrace.hpp — the backtrace of another running thread, unwound with libunwind.
//
// A thread is asked for its stack with a real-time signal (os_backtrace_signal()) sent to it
// alone; its handler unwinds its own stack from the interrupted instruction with libunwind's
// local unwinder, naming each frame's function (unw_get_proc_name), into one preallocated
// buffer, and returns: the thread then runs on. The asking thread waits for it, bounded, and
// turns the raw frames into demangled names and the files that hold them.
//
// Caveat: unwinding inside a signal handler is async-signal-safe "in practice" only.
// libunwind's local unwinder takes no locks and does not allocate once its caches exist, but
// naming a frame reads the ELF file of the code, and libunwind 1.6 allocates (malloc) the
// first time it looks at an image: the program's own image is looked at once at install, so
// in a handler this happens only for a library no earlier backtrace went through. A thread
// interrupted inside malloc could then block in its handler; the asker's bounded wait turns
// that into a frame-less entry, never a hang (and the report ends the job anyway). An
// interrupted thread whose stack or unwind tables are corrupt may give a short or wrong
// backtrace. A thread that has the signal blocked, or is stopped, does not answer: the caller
// then gets -ETIMEDOUT rather than waiting forever.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pgas::detail {

/// One frame of a backtrace, innermost first.
struct stack_frame {
  std::uintptr_t ip = 0;      // the instruction (for callers: the return address)
  std::string function;       // demangled; empty when unknown
  std::uintptr_t offset = 0;  // of ip into `function`
  std::string module;         // the program or shared library holding ip; empty when unknown
};

/// Installs the handler of os_backtrace_signal() for the process (saving the previous action);
/// uninstall puts that back. Returns 0 or -errno.
int backtrace_install() noexcept;
void backtrace_uninstall() noexcept;

/// The backtrace of thread `tid` (os_thread_id() of a thread of this process), waiting up to
/// `timeout_ns` for it to answer. Returns 0 and fills `out`; -ESRCH when the thread has ended;
/// -ETIMEDOUT when it did not answer in time. Captures are serialised (one buffer); any thread
/// but `tid` itself may call it. Allocates: not for signal handlers.
int backtrace_of_thread(int tid, std::uint64_t timeout_ns, std::vector<stack_frame>& out);

/// A C++ symbol or type name demangled ("_Z3fooi" -> "foo(int)"), or `name` itself when it is
/// not a mangled name. Allocates.
std::string backtrace_demangle(const char* name);

/// The frames, one line each: "PREFIX#N  0xADDR in FUNCTION+0xOFF (MODULE)".
std::string backtrace_format(const std::vector<stack_frame>& frames, std::string_view prefix);

}  // namespace pgas::detail
