// src/base/faults.hpp — ending the whole job when something goes wrong, with a message that
// names the thread: uncaught exceptions, fatal signals, misuse detected by the runtime (through
// the error door, pgas/error.hpp), deadlocks, pgas::exit(), and a libc exit() called while a job
// runs (reported, not prevented).
//
// Only the first thread to fail reports; any later one parks until the process ends, so the
// user sees one coherent message. stdout and stderr are flushed before the process ends, so
// the program's own output is not lost.
#pragma once

#include <cstddef>
#include <cstdint>
#include <source_location>
#include <string>
#include <string_view>

namespace pgas::detail {

/// Text built without allocating, for signal handlers.
struct fault_text {
  char data[512];
  std::size_t len = 0;
  void add(const char* s) noexcept;
  void add_int(long long v) noexcept;
  void add_hex(unsigned long long u) noexcept;
};

/// Explains a faulting address in a fatal-signal report (for instance "a write into replica 1
/// of privatization table 3, which is read-only"): appends to `out` and returns true, or returns
/// false when it knows nothing of `addr`. Called from the signal handler: async-signal-safe.
using fault_explainer = bool (*)(const void* addr, fault_text& out) noexcept;

/// Who the calling thread is, for reports: "thread T of N", or, for a thread the program
/// started itself inside a job, "a thread the program started (not one of the N UPC threads)".
/// The first form is async-signal-safe through fault_who(fault_text&).
std::string fault_who();
void fault_who(fault_text& out) noexcept;

/// Installs the fatal-signal handlers and the std::terminate handler for the job; uninstall
/// puts the previous ones back. The first call also registers exit() and quick_exit()
/// handlers, which stay: a job thread (or a thread the program started) that calls either
/// while a job runs is reported, "thread T of N called exit(S) while the job was running",
/// and stdout and stderr are flushed before the process ends; after exit(), it ends with that
/// status at once, without the static destructors and earlier atexit handlers that would run
/// while the other threads still do. `explain` (may be null) is asked
/// about SIGSEGV addresses; it is how layers above the base (the shared space's read-only replicas)
/// name what was hit.
void faults_install(fault_explainer explain);
void faults_uninstall();

/// Per-thread set-up and tear-down (alternate signal stack).
void faults_thread_start();
void faults_thread_end();

/// Claims the right to end the job. Returns true for the first caller; later callers should
/// park (fault_park) — the first one is ending the process.
bool fault_claim() noexcept;
[[noreturn]] void fault_park() noexcept;

/// After claiming: waits up to 200 ms until settled(t) holds for every thread t, so that a
/// report can say where each thread is.
void fault_settle(int threads, bool (*settled)(int thread)) noexcept;

/// Flushes stdout and stderr, waiting at most `patience_ns` for each stream's lock (a thread
/// stuck while holding one must not stop the job from ending): 0 tries once. Async-signal-safe
/// as far as a trylock is (the waiting is clock reads and sched_yield).
void fault_flush_stdio(std::uint64_t patience_ns) noexcept;

/// Prints `message` (each line prefixed "pgas: ") and ends the job with `status`.
[[noreturn]] void fault_end_job(std::string_view message, int status);

/// "FILE:LINE" of a source location.
std::string where_string(const std::source_location& where);

}  // namespace pgas::detail
