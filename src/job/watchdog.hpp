// src/job/watchdog.hpp — the job's watchdog: ends a job that runs past its timeout
// (PGAS_TIMEOUT, pgasrun --timeout) or that is sent SIGQUIT, after printing where every thread
// is and its backtrace, so that a job that hangs in the program's own code can be diagnosed.
//
// The report, on stderr after stdout and stderr are flushed:
//
//   pgas: the job ran past its timeout of 1.5 s (PGAS_TIMEOUT): where its 64 threads are
//   pgas: thread 0 of 64: running
//   pgas:   #0  0x000055d0c8a4b1a9 in spin_forever()+0x9 (/path/to/prog)
//   ...
//   pgas: threads 1-62 of 64 (62 threads, the same stack): running
//   ...
//   pgas: thread 63 of 64: waits in pgas::barrier at prog.cpp:12
//   ...
//
// Every thread is asked for its backtrace at once (src/base/backtrace.hpp), with one second in
// all to answer, so the report takes about that long however many threads do not answer.
// Threads in the same state with the same stack (the same functions, the innermost at any
// instruction of it, called from the same lines) are one entry naming their thread ranges, with
// the lowest thread's frames, as LLNL's STAT merges the stacks of large jobs. Once it has
// answered, or the wait is over, a thread runs only when nothing else wants a processor, so
// that spinning threads do not slow the report.
//
// then the job ends: with exit status 124 after a timeout (as coreutils timeout(1)), or by
// SIGQUIT itself (its default action: terminate with a core dump) after SIGQUIT.
#pragma once

namespace pgas::detail {

struct job;

/// The exit status of a job ended by its timeout.
inline constexpr int timeout_status = 124;

/// Starts watching `j` (its threads' records must exist): a thread that sleeps until the
/// timeout `j.timeout_seconds` (none when 0) or SIGQUIT, whose handler it installs together
/// with the backtrace signal's. Call on thread 0 before the job threads start.
void watchdog_start(job& j);

/// Stops watching (every job thread has returned): wakes and joins the watchdog thread and puts
/// the previous SIGQUIT and backtrace-signal actions back.
void watchdog_stop();

}  // namespace pgas::detail
