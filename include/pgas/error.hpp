// pgas/error.hpp — how pgas reports errors; every public header follows this model.
//
//   * Misuse the runtime can see — a mismatched barrier or collective, wait() without
//     notify(), unlocking a lock the caller does not hold, an invalid pointer-to-shared, an
//     index out of range in a checked build — is caught by an always-on check (the checked
//     build adds the range checks). Inside a job, the whole job ends with exit status 1 and one
//     message on stderr that names the thread, the source file and line, and what was wrong:
//         pgas: thread 1 of 4: pgas::wait() called without a preceding pgas::notify() at x.cpp:12
//     Outside a job (no pgas::run() is running), the same misuse throws pgas::usage_error (a
//     std::logic_error) whose what() is the same text, "pgas: <what> at FILE:LINE"; nothing
//     has to be ended, and a test or tool can catch it. This holds for every public call.
//   * Recoverable failures throw a documented exception type derived from a standard one, and
//     the job goes on if the program catches it: pgas::bad_shared_alloc (std::bad_alloc) when
//     shared memory runs out, pgas::table_error (std::invalid_argument) when no privatization
//     table applies, pgas::topology_error (std::runtime_error) for a machine description that
//     cannot be loaded, std::invalid_argument from the models (pgas::layout) for impossible
//     extents or blocks. A failure is reported in exactly one of the two ways, never both.
//   * An uncaught exception, a fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) or
//     pgas::exit() in any thread ends the whole job promptly with a message naming the thread.
//     A fatal signal is re-raised after the message, so the job dies of that signal.
//   * A thread that returns from its body while others wait at a barrier it will never reach
//     ends the job (status 1) with a report of where each waiting thread is. So does a lock
//     deadlock (pgas/lock.hpp: a cycle of lock waits, a lock held by a thread that returned, a
//     lock held across a barrier its waiter must reach), with who holds what and where.
//   * A malformed PGAS_* variable ends the program with status 2 and a message naming the
//     variable and what it accepts, before any thread starts.
//
// stdout and stderr are flushed before the process ends on every one of these paths. When
// several threads fail at once, the first report ends the job and the others are not printed.
//
// Every public header states, in these terms, what its calls do on misuse, what they throw,
// and what they do outside a job, together with whether they are collective, their memory
// ordering and their thread safety.
#pragma once

#include <source_location>
#include <stdexcept>
#include <string_view>

#include <pgas/detail/export.hpp>

namespace pgas {

/// Misuse detected outside a job (see above). Inside a job misuse ends the job instead.
class PGAS_API usage_error : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

namespace detail {

/// The error door: every always-on misuse check calls it. Inside a job: prints
/// "pgas: thread T of N: <what> at FILE:LINE" on stderr and ends the job with status 1.
/// Outside a job: throws pgas::usage_error("pgas: <what> at FILE:LINE").
[[noreturn]] PGAS_API void misuse(std::string_view what, const std::source_location& where);

/// As misuse(), for checks that have no call site to name (operator*, operator->): inside a
/// job the message is followed by the calling thread's backtrace instead of FILE:LINE.
[[noreturn]] PGAS_API void misuse_here(std::string_view what);

}  // namespace detail
}  // namespace pgas
