// src/job/barrier.hpp — the job's barrier: arrival with agreement checking and the split-phase
// wait.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <source_location>
#include <string>

namespace pgas::detail {

struct job;

/// Kinds of collective synchronisation. Arrivals of different kinds in one phase are a
/// mismatch (a barrier meeting, say, all_lock_alloc on another thread).
enum class op_kind : std::uint8_t {
  barrier = 1,
  all_lock_alloc,
  all_lock_free,
  all_alloc,
  all_free,
  privatize,
  // The value collectives of pgas/collectives.hpp (src/job/value.cpp).
  value_broadcast,
  value_reduce,
  value_allreduce,
  value_scan,
  value_exscan,
  value_allgather,
  value_allreduce_span,
  upc_collective,  // the ALLSYNC barriers of pgas/upc_collectives.hpp
  atomicdomain_alloc,
  atomicdomain_free,
  static_objects,  // the end of the bodies, before static shared objects are freed
  fill_ghosts      // pgas::fill_ghosts' barriers (src/objects/ndarray_copy.cpp)
};

struct barrier_op {
  op_kind kind = op_kind::barrier;
  const char* name = "pgas::barrier";
  bool has_id = false;
  std::int32_t id = 0;          // a barrier id, or a value all threads must agree on
  const char* id_label = "id";  // what the id means, for reports
  std::source_location where;
  // Arguments as text for reports ("nblocks=4, nbytes=100"), or null. Must stay valid while
  // the thread waits (a thread-local buffer of the caller).
  const char* detail = nullptr;
  // Run by the last arriver, after every thread has arrived and before any leaves, with
  // `last_arg` (the last arriver's own): a collective free releases here, so that once any
  // thread has returned from it the storage is gone for every thread. Null for none.
  void (*last)(const void* arg) = nullptr;
  const void* last_arg = nullptr;
};

// Cache-line layout: the arrival word is written by every arriving thread; the sleeper count
// shares its line, because the last arriver reads it right after its CAS, when it owns the line
// anyway (threads write it only when they go to sleep, off the fast path). The generation is
// written once per phase and spun on by waiters: its own line keeps spinning waiters from being
// invalidated by arrivals.
struct barrier_state {
  // bits 0..19 count, 20..27 kind, 28 has_id, 32..63 id (see barrier.cpp).
  alignas(64) std::atomic<std::uint64_t> arrivals{0};
  std::atomic<std::uint32_t> sleepers{0};
  // Bytes that travel in the arrival word's line, for the value collectives of small jobs
  // (src/job/value.cpp), so that such an allreduce moves the same cache lines as a barrier:
  // - Up to line_fold_threads threads: 8-byte slots by phase parity and thread
  //   (line_fold_slot). A thread stores its value into its slot for the phase it arrives at
  //   right before its arrival CAS, which must own the line anyway, and every thread reads
  //   all of the phase's slots after its release. A slot is written again two phases later,
  //   after every thread has arrived at the phase between, that is, after it read them.
  // - Up to line_values_threads threads: the result at line_result and thread t's value at
  //   line_slot(t). Every thread stores its value right before its arrival CAS
  //   (barrier_sync_line); the last arriver reads every slot in its `last` hook, with the line
  //   still its own after its CAS, and writes the result before the release. The slots are
  //   read only by that hook, the result only between barrier_complete and the thread's next
  //   arrival.
  alignas(8) unsigned char line_payload[48];
  alignas(64) std::atomic<std::uint32_t> generation{0};
  // Bytes that travel in the generation's cache line: the last arriver may write them in
  // op.last, before it releases the phase, and every thread may read them after
  // barrier_complete until it arrives at the next phase. The value collectives put their
  // result here (src/job/value.cpp), so that it reaches the waiters with the release itself.
  alignas(8) unsigned char payload[56];
};

static_assert(sizeof(barrier_state) == 128, "two cache lines: arrivals, generation");

/// How many threads' 8-byte values fit twice (one set per phase parity) in the arrival word's
/// line, and how many fit once beside a result.
inline constexpr int line_fold_threads = 3;
inline constexpr int line_values_threads = 5;

/// What barrier_sync_line copies out at the release: one phase's set of fold slots.
inline constexpr std::size_t line_copy_bytes = 8 * line_fold_threads;

/// Thread t's value slot for phases of parity `parity`, in the arrival word's line.
inline unsigned char* line_fold_slot(barrier_state& b, int parity, int t) noexcept {
  return b.line_payload + 8 * (line_fold_threads * parity + t);
}

/// The result bytes, and thread t's value slot, in the arrival word's line.
inline unsigned char* line_result(barrier_state& b) noexcept {
  return b.line_payload;
}
inline unsigned char* line_slot(barrier_state& b, int t) noexcept {
  return b.line_payload + 8 * (t + 1);
}

/// What a thread that has made `calls` UPC collective calls (collective_epochs.hpp) puts in
/// bits 30-31 of its barrier arrivals: the count modulo 4. Every thread makes the same
/// collective calls in the same order, so at any phase the counts agree; a thread that skipped
/// (or repeated) a barrier-free UPC_IN_NOSYNC|UPC_OUT_NOSYNC call arrives with another
/// signature, and the mismatch is reported at once (a difference of a multiple of 4 calls goes
/// unseen there; the end of the job sees it).
constexpr std::uint64_t barrier_call_bits(std::uint32_t calls) noexcept {
  return std::uint64_t{calls & 3u} << 30;
}
inline constexpr std::uint64_t barrier_call_mask = barrier_call_bits(3);

/// Arrives at the current phase (UPC notify). Checks that `op` agrees with the other
/// arrivals; the last arriver runs `op.last`, if any, and releases the phase.
void barrier_arrive(job& j, const barrier_op& op);

/// Waits for the phase this thread arrived at to complete (UPC wait).
void barrier_complete(job& j);

/// A library collective's barrier that is no user barrier (op.kind is not op_kind::barrier,
/// so a thread at pgas::barrier() meets it as a mismatch), with everything pgas::barrier()
/// does around its arrival: the software caches written back, a traced job's count and wait.
/// op.detail must stay readable for the rest of the job (a report may read it after the
/// thread has left). Misuse: a call outside a job, or between notify and wait (barrier_arrive's).
void barrier_collective(const barrier_op& op);

/// barrier_arrive then barrier_complete, in one call, moving bytes of the arrival word's line
/// (the small value collectives, src/job/value.cpp): the thread stores the 8 bytes `value` at
/// `store_to` right before its first arrival CAS, which drains the store with the ownership of
/// the line it needs anyway (stored any earlier, the store would fetch the line on its own and
/// a waiter spinning there would take it back before the CAS); and it copies line_copy_bytes
/// bytes from `copy_from` to `copy_to` as soon as it sees the phase released (the last arriver
/// right after its release), before another thread's next arrival can take the line away.
/// Null `store_to` or `copy_from`: that part is skipped. The arguments travel in registers.
void barrier_sync_line(job& j, const barrier_op& op, unsigned char* store_to, std::uint64_t value,
                       const unsigned char* copy_from, unsigned char* copy_to);

struct thread_record;

/// Where a notified thread's open notify is, for reports, as the program spelled it:
/// "pgas::notify() at f:l and its pgas::wait()", or "upc_notify at f:l and its upc_wait" (a
/// pgas::barrier or upc_barrier that misuse stopped between its two halves is named so too).
std::string notified_at(const thread_record& r);

/// Called by a thread whose body returned: reports a deadlock if others wait for it.
void barrier_thread_returned(job& j, int thread);

/// Ends the job (status 1) when thread `thread`, whose body returned, is between
/// pgas::notify() and pgas::wait(): before anything at the end of its body arrives at a barrier.
void barrier_check_not_notified_at_return(job& j, int thread);

}  // namespace pgas::detail
