// src/job/collective_epochs.hpp — pairwise readiness for the UPC collectives
// (pgas/upc_collectives.hpp): per-thread entry and exit epochs, the waits of UPC_IN_MYSYNC and
// UPC_OUT_MYSYNC, and an agreement check that needs no barrier.
//
// Every thread numbers its UPC collective calls 1, 2, 3, ... (all threads make the same
// sequence). Entering call k a thread publishes `entered = k`; once its own reads and writes of
// call k are done it publishes `done = k`. MYSYNC waits are on one other thread's word
// (entered >= k or done >= k): a thread waits only for the threads whose data it touches, or
// which touch its data, never for the whole job.
//
// The agreement check: entering call k a thread writes a ring entry (slot k % ring size) with k,
// a hash of the call's name and arguments and the barrier phase it is in, then looks at every
// other thread's entry for k. Both sides publish before they look (sequentially consistent), so
// of two threads that disagree at least the second one to arrive sees the other's entry, unless
// the first has meanwhile run a whole ring ahead (only possible with NOSYNC calls).
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <source_location>
#include <string>
#include <string_view>

namespace pgas::detail {

struct job;

inline constexpr int epoch_ring_size = 8;
// The agreement text kept for reports (a reduction's, with its operands' addresses and func,
// runs to about 150 characters); longer ones end in "..." (the hash covers all of it).
inline constexpr std::size_t epoch_text_size = 256;

/// One call's agreement entry. Written only by its owner: `key` is cleared first and written
/// last (k << 32 | hash), so a reader that sees the same key before and after reading the
/// other fields read one call's values.
struct epoch_entry {
  std::atomic<std::uint64_t> key{0};
  std::atomic<const char*> name{nullptr};
  std::atomic<const char*> file{nullptr};
  std::atomic<std::uint32_t> line{0};
  std::atomic<std::uint32_t> phase{0};  // the barrier generation the thread was in
  std::array<std::atomic<char>, epoch_text_size> text{};
};

// Cache-line layout: `entered` and `done` are spun on by other threads, each on its own line
// with its sleeper count (read by the owner on every store); the ring is read by other threads
// once per call; `calls` is the owner's.
struct alignas(64) collective_epoch {
  std::atomic<std::uint32_t> entered{0};
  std::atomic<std::uint32_t> entered_sleepers{0};
  alignas(64) std::atomic<std::uint32_t> done{0};
  std::atomic<std::uint32_t> done_sleepers{0};
  alignas(64) std::uint32_t calls = 0;
  std::array<epoch_entry, epoch_ring_size> ring{};
  // A reduction's partial result for another thread (up to a long double), double-buffered by
  // call number; for each buffer the call that last used it and its reader (-1: none). Written
  // by the owner, read by the reader once the owner has finished that call.
  alignas(64) std::array<std::array<std::byte, 16>, 2> partial{};
  std::array<std::uint32_t, 2> partial_call{};
  std::array<int, 2> partial_reader{-1, -1};
};

/// One UPC collective call on the calling thread.
struct epoch_call {
  job* j = nullptr;
  int me = 0;
  std::uint32_t k = 0;  // the call's number on every thread
  const char* name = "";
  std::source_location where;
};

/// Enters a UPC collective call `name` whose single-valued arguments are `text`. Misuse
/// (pgas/error.hpp) outside a job, between pgas::notify() and pgas::wait(), or when another
/// thread's call with the same number is a different call, has other arguments or comes after
/// a different number of barriers (the message names both calls' file:line).
epoch_call epoch_enter(const char* name, std::string_view text, const std::source_location& where);

/// For reports of a job that went wrong: empty when every thread has entered as many UPC
/// collective calls, else a line saying how many each has and which call the most advanced made
/// last (a thread that skipped a collective explains a later deadlock).
std::string epoch_counts_differ(job& j);

/// UPC_IN_MYSYNC: waits until thread `t` has entered this call. Ends the job (misuse) when `t`
/// can never enter it: it returned from its body or waits at a barrier this thread must reach.
void epoch_wait_entered(const epoch_call& c, int t);

/// Marks the calling thread's reads and writes of this call complete.
void epoch_finish(const epoch_call& c);

/// UPC_OUT_MYSYNC: waits until thread `t` has finished this call (as epoch_wait_entered).
void epoch_wait_done(const epoch_call& c, int t);

/// Where the calling thread leaves a partial result of this call for thread `reader` (16
/// bytes). Waits first, when the buffer's previous reader has not finished the call it was
/// for. The reader sees what is written there before this thread's epoch_finish().
void* epoch_partial_slot(const epoch_call& c, int reader);

/// Thread `t`'s partial result of this call: waits until `t` has finished the call.
const void* epoch_partial_of(const epoch_call& c, int t);

/// UPC_IN_ALLSYNC / UPC_OUT_ALLSYNC: a barrier among all threads that checks this call's
/// arguments (`text`) like every collective's (src/job/collective.hpp).
void epoch_barrier(const epoch_call& c, std::string_view text);

}  // namespace pgas::detail
