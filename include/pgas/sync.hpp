// pgas/sync.hpp — barriers, split-phase barriers and fences (UPC 1.3 §6.6).
//
// All barrier forms are collective: every thread of the job must make the same sequence of
// barrier calls. The runtime checks this on every barrier:
//   * named barriers (`barrier(id)`, `notify(id)`) must agree on `id` among the threads that
//     pass one; a thread that passes none matches any id (UPC `upc_barrier` without expr);
//   * a barrier must not meet a different collective operation on another thread (for
//     instance pgas::all_lock_alloc), which would otherwise pair up silently;
//   * notify() must be followed by wait() before the next notify(), and wait() must follow a
//     notify().
// A violation is misuse (pgas/error.hpp): the job ends with status 1 and a message naming each
// thread, the value it passed and the file:line of its call. A thread that returns from its
// body while others wait at a barrier also ends the job, with where each waiting thread is.
// Outside a job there is nothing to synchronise with: barrier(), notify() and wait() throw
// pgas::usage_error; fence() works anywhere.
//
// Thread safety: each call acts for the calling thread only; every thread of the job makes
// its own calls.
//
// Waiting threads spin briefly with a pause instruction, then yield the processor, then sleep
// on a futex, so that jobs with more threads than cores (oversubscribed) still progress. The
// spin length adapts: an oversubscribed job's waiters do not spin but yield at once, to the
// threads that share their processing unit (PGAS_SPIN overrides it). A thread that completes
// a barrier makes a system call only to wake threads that sleep.
//
// Memory ordering: a barrier is a full fence among all threads. Every memory operation a
// thread issued before notify() (or barrier()) happens-before every memory operation any
// thread issues after the matching wait() (or barrier()) returns. notify() itself is a release
// operation; wait() is an acquire operation. This is UPC's rule that barriers imply
// upc_fence, and makes relaxed shared accesses before the barrier visible after it. A
// non-blocking transfer (pgas/nb.hpp) still under way is not such an access: neither a barrier
// nor fence() completes or orders it; complete it (pgas::sync, pgas::synci) before the barrier.
#pragma once

#include <pgas/detail/export.hpp>

#include <source_location>

namespace pgas {

/// Blocks until every thread has called barrier() (UPC `upc_barrier`). Collective.
PGAS_API void barrier(std::source_location where = std::source_location::current());

/// Named barrier (UPC `upc_barrier expr`): as barrier(), and every thread that passes an id
/// must pass the same one. Collective.
PGAS_API void barrier(int id, std::source_location where = std::source_location::current());

/// First half of a split-phase barrier (UPC `upc_notify`): announces arrival and returns at
/// once. The thread may do local work, then must call wait(). Collective.
PGAS_API void notify(std::source_location where = std::source_location::current());
PGAS_API void notify(int id, std::source_location where = std::source_location::current());

/// Second half (UPC `upc_wait`): returns once every thread has notified. If `id` is given it
/// must equal the id this thread passed to notify(), if it passed one. Collective.
PGAS_API void wait(std::source_location where = std::source_location::current());
PGAS_API void wait(int id, std::source_location where = std::source_location::current());

/// UPC `upc_fence`: orders this thread's memory operations — all loads and stores before it
/// complete (are visible to every thread) before any after it. A sequentially consistent
/// fence; not collective; no synchronisation with other threads by itself.
///
/// The calling thread's software caches (pgas/cache.hpp) write back their dirty copies first,
/// so the fence orders those writes too; a traced job counts the call at `where`.
///
/// Memory ordering: std::atomic_thread_fence(std::memory_order_seq_cst).
PGAS_API void fence(std::source_location where = std::source_location::current());

/// UPC upc_poll: lets the runtime make progress. pgas has no background work — every copy,
/// lock and collective completes in the call that starts it — so there is nothing to advance;
/// poll() exists for loops that spin on a flag another thread sets (with a strict load,
/// pgas/strict.hpp): it yields the processor when the job has more threads than processing
/// units, so that the setter runs, and otherwise is one pause instruction. Not collective;
/// thread-safe; no memory ordering. Works outside a job (a pause).
PGAS_API void poll() noexcept;

}  // namespace pgas
