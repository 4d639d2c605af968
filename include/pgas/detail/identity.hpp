// pgas/detail/identity.hpp — who the calling thread is: its UPC thread number, THREADS, and
// whether a job is running. The lowest layer's view of the job, so that every layer (error
// reports in the base, the shared space) can name a thread without depending on the job
// itself. Written by the job layer (src/job/runtime.cpp) only; not part of the API (use
// pgas::mythread(), pgas::threads() and pgas::in_job() from <pgas/runtime.hpp>).
#pragma once

#include <atomic>

#include <pgas/detail/export.hpp>

namespace pgas::detail {

// Initial-exec TLS: one instruction to read, and safe to read from a signal handler. 0 outside
// a job and in threads the job did not start.
PGAS_API extern thread_local constinit int tls_mythread __attribute__((tls_model("initial-exec")));
// THREADS of the running job; 1 outside a job. Written before the job's threads start and after
// they are joined, so plain loads are race-free.
PGAS_API extern int job_threads;
// True in the threads a job started (its UPC threads, the caller of pgas::run() included) while
// the job runs; false in threads the program starts itself (a std::thread inside the body),
// which read tls_mythread as 0 but are not thread 0. Read by fault reports to name the thread.
extern thread_local constinit bool tls_job_thread __attribute__((tls_model("initial-exec")));
// In a thread the runtime starts for its own work (a copy engine of pgas/nb.hpp), what reports
// call it ("the copy engine of NUMA node 0"); null in every other thread. Such threads are not
// UPC threads: tls_job_thread is false in them.
extern thread_local constinit const char* tls_runtime_thread
    __attribute__((tls_model("initial-exec")));
// True from the moment a job's state is complete until it is torn down.
extern std::atomic<bool> job_live;

}  // namespace pgas::detail
