// src/job/static_registry.hpp — what pgas::run (src/job/runtime.cpp) does with the static
// shared objects registered by namespace-scope declarations (pgas/detail/static_registry.hpp):
// allocate their per-thread handles before the threads start, create them on every thread
// before its body, free them on every thread after its body, drop the handles after the join.
#pragma once

namespace pgas::detail {

struct job;

/// On the thread that called run(), before any job thread starts. May throw std::bad_alloc.
void static_objects_job_begin(int threads);
/// On every job thread, before its body: creates every object in registration order
/// (collective; every thread has the same list, being one process).
void static_objects_thread_create();
/// On every job thread, after its body: a barrier (the end of every body), then frees every
/// object in reverse order (collective). Nothing when no object is registered.
void static_objects_thread_destroy(job& j) noexcept;
/// After the join, on the thread that called run().
void static_objects_job_end() noexcept;

}  // namespace pgas::detail
