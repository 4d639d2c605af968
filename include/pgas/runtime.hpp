// pgas/runtime.hpp — starting a job of UPC threads, and who am I within it.
//
// A pgas job is THREADS pinned pthreads in one process, each running the same body (SPMD).
// The thread that calls pgas::run() becomes thread 0; the others are created by it.
//
// Contract.
//   * Collective: nothing here. run() is called by one thread; the other calls are local.
//   * Errors follow pgas/error.hpp: misuse inside a job ends the job naming the thread, file
//     and line. run() is the exception: it starts jobs, so its errors (a malformed PGAS_*
//     variable, a call while a job is running) end the program with status 2 instead.
//   * Outside a job: mythread() is 0, threads() is 1 and in_job() is false; exit() ends the
//     process as it would a job; job_machine() and job_placement() are misuse and throw
//     pgas::usage_error.
//   * Memory ordering: everything the caller of run() did before the call happens-before
//     every body starts (thread creation), and everything every body did happens-before run()
//     returns (the threads are joined).
//   * Thread safety: every call here is thread-safe; run() does not nest (one job at a time).
//
// Globals. The UPC threads share one process, so a namespace-scope variable, a class's static
// member, a function-local `static` and the C library's state (rand()'s generator, strtok()'s
// position) are one object for all of them, where UPC gives each thread its own copy. Declare
// per-thread globals `thread_local`: each UPC thread then has its own, initialised before its
// first use in that thread (constant initialisers at thread start). Threads 1..THREADS-1 are
// created for each job and joined at its end, so their thread_local objects start afresh with
// every run() and are destroyed at the join; thread 0 is the caller of run(), whose objects
// persist across jobs. Use rand_r() or a thread_local <random> engine instead of rand(), and the
// _r forms of strtok(), localtime() and the like. `pgasrun --check-globals PROGRAM` lists the
// writable globals a program has left shared (README, "Per-thread globals").
#pragma once

#include <concepts>
#include <functional>
#include <optional>
#include <source_location>
#include <string>
#include <type_traits>
#include <vector>

#include <pgas/detail/export.hpp>
#include <pgas/detail/identity.hpp>
#include <pgas/error.hpp>
#include <pgas/topology.hpp>

namespace pgas {

/// What a job is started with. Every field left empty takes its value from the environment
/// (the PGAS_* variables that `pgasrun` sets; `pgasrun --help-env` lists them), and failing
/// that, the documented default. Tests and embedders fill fields to start a job without
/// touching the environment.
struct PGAS_API run_options {
  /// THREADS; PGAS_THREADS; default 1. Must be in 1..config::max_threads.
  std::optional<int> threads;
  /// What each thread is bound to; PGAS_BIND_TO; default bind_policy::core.
  std::optional<bind_policy> bind_to;
  /// How threads are dealt over the machine; PGAS_MAP_BY; default map_policy::core.
  std::optional<map_policy> map_by;
  /// Print the thread → PU → core → L3 → NUMA → package table on stderr at start-up;
  /// PGAS_REPORT_BINDINGS; default false.
  std::optional<bool> report_bindings;
  /// Plan placement on a described machine ("synthetic:DESC" or an hwloc XML file) instead of
  /// this one; the plan is then only reported, never applied. PGAS_TOPOLOGY; default empty.
  std::optional<std::string> topology;

  /// Fills every empty field from the environment and defaults. Throws std::invalid_argument
  /// naming the variable and the accepted values when one is malformed.
  [[nodiscard]] run_options resolved() const;
};

/// The body every thread runs: `int(int argc, char** argv)`. Its return values become the
/// job's exit status: 0 when every thread returns 0, else the first non-zero value in thread
/// order. run() also takes a body `void(int, char**)`, `int()` or `void()` (below); a void
/// body counts as returning 0.
///
/// A ported UPC `main` with no `return` (legal in C, where falling off main's end returns 0)
/// must not become an `int` function: falling off the end of any function but main is
/// undefined in C++ (g++ -O2 may fall through into the next function's code). Declare the
/// renamed main `auto` instead, as README.md's porting rule does:
///   static auto upc_main(int argc, char** argv) { ... }   // was: int main(int argc, ...)
///   int main(int argc, char** argv) { return pgas::run(argc, argv, upc_main); }
/// A body with no `return` is then void (status 0), one that returns everywhere is int; one
/// that returns a value on some paths and falls off the end on others is still undefined, and
/// <pgas/upc.hpp> makes it a compile error (`-Wreturn-type` as an error: "control reaches end
/// of non-void function").
using body_function = std::function<int(int, char**)>;

/// Runs `body(argc, argv)` in THREADS threads and returns the job's exit status.
///
/// Call it from one thread (usually main), which becomes thread 0, outside any job. THREADS
/// and placement come from the PGAS_* environment (set by `pgasrun`); a program started
/// without `pgasrun` runs with the defaults (one thread). Each thread is bound with hwloc
/// before its body starts. With more threads than processing units a warning is printed once
/// and the job still runs correctly (waits then yield the processor instead of spinning).
///
/// Errors: a malformed PGAS_* variable, or a call while a job is running, prints one message
/// naming what was wrong and exits with status 2. Faults in the body end the job as described
/// in the error model above. A job still running after PGAS_TIMEOUT seconds (`pgasrun
/// --timeout`), or sent SIGQUIT, is ended after a report on stderr of where every thread is
/// and its backtrace: with exit status 124 after a timeout, by SIGQUIT itself otherwise. A
/// thread that calls the C library's exit() or quick_exit() while the job runs ends it as those
/// calls do, and the runtime names that thread on stderr.
PGAS_API int run(int argc, char** argv, body_function body);

/// As above, with explicit options (empty fields still come from the environment).
PGAS_API int run(const run_options& options, int argc, char** argv, body_function body);

namespace detail {
// A body run() adapts: `int()`, `void()` or `void(int, char**)` (a void body returns 0).
template <class F>
concept adaptable_body =
    !std::is_convertible_v<F, body_function> &&
    (std::invocable<F&> ||
     (std::invocable<F&, int, char**> && std::is_void_v<std::invoke_result_t<F&, int, char**>>));

template <class F>
body_function adapt_body(F&& body) {
  return [b = std::forward<F>(body)](int argc, char** argv) mutable {
    if constexpr (!std::invocable<F&>) {
      b(argc, argv);
      return 0;
    } else if constexpr (std::is_void_v<std::invoke_result_t<F&>>) {
      b();
      return 0;
    } else {
      return static_cast<int>(b());
    }
  };
}
}  // namespace detail

/// Convenience forms for bodies `int()`, `void()` and `void(int, char**)` (a void body counts
/// as returning 0).
template <detail::adaptable_body F>
int run(int argc, char** argv, F&& body) {
  return run(argc, argv, detail::adapt_body(std::forward<F>(body)));
}
template <detail::adaptable_body F>
int run(const run_options& options, int argc, char** argv, F&& body) {
  return run(options, argc, argv, detail::adapt_body(std::forward<F>(body)));
}

/// This thread's number, 0..threads()-1 (UPC `MYTHREAD`). Outside a job: 0.
/// Thread-safe; a single thread-local load.
inline int mythread() noexcept {
  return detail::tls_mythread;
}

/// The number of threads in the job (UPC `THREADS`). Outside a job: 1.
inline int threads() noexcept {
  return detail::job_threads;
}

/// True while a job started by pgas::run() is running (in any of its threads). Thread-safe.
PGAS_API bool in_job() noexcept;

/// Ends the whole job with `status` (UPC `upc_global_exit`): flushes stdio, prints one line
/// naming the calling thread, the status and the call site on stderr, and terminates every
/// thread at once, without running destructors or atexit handlers. Callable from any thread;
/// the first caller's status wins. Outside a job it ends the process the same way (as thread
/// 0 of 1).
[[noreturn]] PGAS_API void exit(
    int status, std::source_location where = std::source_location::current()) noexcept;

/// The machine and placement the running job was started with (thread t's entry is
/// job_placement()[t]). Valid until the job ends. Not collective; thread-safe. Outside a job:
/// misuse, so they throw pgas::usage_error.
PGAS_API const machine& job_machine(std::source_location where = std::source_location::current());
PGAS_API const std::vector<thread_place>& job_placement(
    std::source_location where = std::source_location::current());

}  // namespace pgas
