// src/base/backtrace.hpp — backtraces unwound with libunwind: of another running thread, of the
// calling thread, and of a thread inside a fatal-signal handler; all are written in one format.
//
// Unwinding records each frame's address only (and where its function starts, by the unwind
// tables); naming a frame allocates, so frames are named afterwards, outside any signal handler,
// from the images' symbol tables (src/base/source_lines.hpp: .symtab where present, the
// separate debug file's, else the dynamic symbols), demangled, with the file that holds them
// and, where there is debug information, the source line.
//
// Another thread is asked for its stack with a real-time signal (os_backtrace_signal()) sent to
// it alone; its handler unwinds its own stack from the interrupted instruction with libunwind's
// local unwinder into a slot the asker allocated, and returns: the thread then runs on. The
// asking thread waits for it, bounded, and names the frames. Many threads are asked at once
// (backtraces_of_threads), against one deadline.
//
// Caveat: unwinding inside a signal handler is async-signal-safe "in practice" only:
// libunwind's local unwinder does not allocate once its caches exist (warmed up by
// backtrace_install and backtrace_fatal_start), so a thread interrupted inside malloc, even one
// stuck on a heap lock, answers. It finds unwind tables through dl_iterate_phdr, whose loader
// lock is recursive: an interrupted thread that holds it goes on; another thread that holds it
// (loading a library) only delays the answer. An interrupted thread whose stack or unwind
// tables are corrupt may give a short or wrong backtrace. A thread that has the signal blocked,
// or is stopped, does not answer: the caller then gets -ETIMEDOUT rather than waiting forever.
//
// A fatal signal's handler must not allocate at all either: a thread that faulted inside malloc
// (heap corruption ends in abort() with the arena locked) would deadlock on its own lock. It
// records the frames' addresses and posts them to a symbolising thread started beforehand, then
// waits, bounded. That thread names and writes the frames. When it does not answer, the handler
// writes the addresses itself.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pgas::detail {

/// One frame of a backtrace, innermost first. A backtrace keeps the innermost 64 frames; when
/// the stack goes on beyond them, a last entry with `more` set (and nothing else) says so.
struct stack_frame {
  std::uintptr_t ip = 0;      // the instruction (for callers: the return address)
  std::string function;       // demangled; empty when unknown
  std::uintptr_t offset = 0;  // of ip into `function`
  std::string module;         // the program or shared library holding ip; empty when unknown
  std::string file;           // the source file and line (of the call, for callers), from the
  int line = 0;               //   image's debug information; empty and 0 when unknown
  std::string inlined_at;     // ", inlined at F:L[, inlined at F:L]": the call sites of code
                              //   inlined there, innermost first; empty when none
  bool more = false;          // not a frame: the marker of frames left out
};

/// Installs the handler of os_backtrace_signal() for the process (saving the previous action);
/// uninstall puts that back. Returns 0 or -errno.
int backtrace_install() noexcept;
void backtrace_uninstall() noexcept;

/// The backtrace of thread `tid` (os_thread_id() of a thread of this process), waiting up to
/// `timeout_ns` for it to answer. Returns 0 and fills `out`; -ESRCH when the thread has ended;
/// -ETIMEDOUT when it did not answer in time. Captures are serialised (one request at a time);
/// any thread but `tid` itself may call it. Allocates: not for signal handlers.
int backtrace_of_thread(int tid, std::uint64_t timeout_ns, std::vector<stack_frame>& out);

/// One thread's answer to backtraces_of_threads: `error` as backtrace_of_thread returns it,
/// `frames` when it is 0.
struct thread_backtrace {
  int error = 0;
  std::vector<stack_frame> frames;
};

/// The backtraces of the threads `tids`, asked all at once: every thread is signalled, then all
/// get the same `timeout_ns` to answer (a thread that has begun unwinding gets a quarter of it
/// again), so the wait takes at most 1.25 x `timeout_ns` however many threads do not answer;
/// naming the frames follows (each distinct address once).
/// out[i] is tids[i]'s. With `quiet`, for a report after which the process ends, each thread
/// runs only when nothing else wants a processor (os_thread_background) from its answer on, or
/// from the end of the wait when it did not answer, and from before it is asked when there are
/// more than 64 threads per processor: threads that spin (a thousand on a few cores) then
/// neither delay the asking of the others nor starve the naming of the frames.
/// Otherwise as backtrace_of_thread (which asks a batch of one); a tid must not be the
/// caller's, nor appear twice.
void backtraces_of_threads(const std::vector<int>& tids, std::uint64_t timeout_ns,
                           std::vector<thread_backtrace>& out, bool quiet = false);

/// A C++ symbol or type name demangled ("_Z3fooi" -> "foo(int)"), or `name` itself when it is
/// not a mangled name. Allocates.
std::string backtrace_demangle(const char* name);

/// The calling thread's backtrace, starting at the caller of the function that calls this one,
/// `skip` frames further out (skip 0: that function's caller). Empty when libunwind cannot
/// unwind. Allocates: not for signal handlers.
std::vector<stack_frame> backtrace_of_self(int skip);

/// Starts the thread that symbolises fatal-signal backtraces (backtrace_write_fatal), and
/// unwinds once here so that libunwind's caches exist and the images on this stack (the
/// program, the runtime, libc) have been looked at before any handler runs. Call before the
/// fatal-signal handlers are installed; backtrace_fatal_stop joins the thread. Returns 0 or
/// -errno: without the thread, fatal backtraces are written as addresses only.
int backtrace_fatal_start() noexcept;
void backtrace_fatal_stop() noexcept;

/// Writes to stderr the backtrace of the calling thread from the instruction a signal
/// interrupted (`ucontext`: the third argument of an SA_SIGINFO handler), each frame's line as
/// backtrace_format writes it with `prefix` (a string that outlives the call). For a
/// fatal-signal handler that has claimed the report (fault_claim): one caller at a time, one
/// static buffer. It allocates nothing and takes no lock itself; the symbolising thread gets up
/// to 1 s to name and write the frames, after which they are written here, each as
/// "0xADDR in ??", without names or modules.
void backtrace_write_fatal(void* ucontext, const char* prefix) noexcept;

/// The frames, one line each: "PREFIX#N  0xADDR in FUNCTION+0xOFF at FILE:LINE (MODULE)",
/// without " at FILE:LINE" where the line is unknown and with ", inlined at FILE:LINE" after
/// it for each inlined call around the address (the last is the function's own line); the marker of
/// frames left out as "PREFIX...  more frames, not shown: only the innermost 64 are".
std::string backtrace_format(const std::vector<stack_frame>& frames, std::string_view prefix);

}  // namespace pgas::detail
