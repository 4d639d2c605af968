// src/faults.hpp — ending the whole job when something goes wrong, with a message that names
// the thread: uncaught exceptions, fatal signals, misuse detected by the runtime, deadlocks and
// pgas::exit().
//
// Only the first thread to fail reports; any later one parks until the process ends, so the
// user sees one coherent message. stdout and stderr are flushed before the process ends, so
// the program's own output is not lost.
#pragma once

#include <source_location>
#include <string>
#include <string_view>

namespace pgas::detail {

/// Installs the fatal-signal handlers and the std::terminate handler for the job; uninstall
/// puts the previous ones back.
void faults_install();
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

/// Prints `message` (each line prefixed "pgas: ") and ends the job with `status`.
[[noreturn]] void fault_end_job(std::string_view message, int status);

/// Misuse detected by an always-on check: "pgas: thread T: <what> at FILE:LINE", status 1.
[[noreturn]] void fault_misuse(const std::source_location& where, std::string_view what);

/// "FILE:LINE" of a source location.
std::string where_string(const std::source_location& where);

}  // namespace pgas::detail
