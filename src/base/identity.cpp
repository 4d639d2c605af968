// src/base/identity.cpp — the calling thread's UPC identity (pgas/detail/identity.hpp), kept in
// the base so that every layer can name a thread; the job layer writes it.

#include <pgas/detail/identity.hpp>

namespace pgas::detail {

thread_local constinit int tls_mythread __attribute__((tls_model("initial-exec"))) = 0;
thread_local constinit bool tls_job_thread __attribute__((tls_model("initial-exec"))) = false;
thread_local constinit const char* tls_runtime_thread __attribute__((tls_model("initial-exec"))) =
    nullptr;
int job_threads = 1;
std::atomic<bool> job_live{false};

}  // namespace pgas::detail
