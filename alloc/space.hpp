// alloc/space.hpp — the job's shared space: one reservation of THREADS power-of-two segments,
// each bound to its owner's NUMA node, committed on use, with per-thread accounting.
//
// Segment t = [base + t * segment_size, base + (t + 1) * segment_size):
//   [0, segment_size / 2)             symmetric region (same offsets in every segment)
//   [segment_size / 2, segment_size)  local region (extents for thread t's jemalloc arena)
// The whole reservation starts PROT_NONE; regions are made read-write in 2 MiB steps as they
// grow, so a stray access beyond what was ever allocated faults; the bulk copies check their
// ranges against the committed sizes first (geometry.hpp) and report such a range as misuse.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <pgas/detail/geometry.hpp>

#include "alloc/symmetric.hpp"

namespace pgas::detail {

// Bytes allocated in a segment = allocated + local_by_owner - local_freed_by_others. The
// owner's local allocations and frees update local_by_owner with plain (relaxed) stores —
// no locked instruction on the local_alloc fast path; other writers use atomic adds.
struct alignas(64) segment_account {
  std::atomic<std::size_t> allocated{0};              // distributed parts (any thread adds)
  std::atomic<std::size_t> local_by_owner{0};         // written by the owner only
  std::atomic<std::size_t> local_freed_by_others{0};  // frees of local blocks by other threads

  std::size_t total() const noexcept {
    return allocated.load(std::memory_order_relaxed) +
           local_by_owner.load(std::memory_order_relaxed) -
           local_freed_by_others.load(std::memory_order_relaxed);
  }
  std::atomic<std::size_t> local_top{0};  // next free byte of the local region (offset)
};

struct space {
  char* base = nullptr;
  std::size_t segment_size = 0;  // power of two
  int segment_shift = 0;         // log2(segment_size)
  int threads = 0;
  std::size_t limit = 0;     // per-thread cap on allocated bytes
  std::size_t reserved = 0;  // bytes reserved (threads * segment_size + alignment slack)
  char* mapping = nullptr;   // what mmap returned, for munmap
  std::vector<int> nodes;    // NUMA node each segment is bound to, -1 if not bound
  std::unique_ptr<segment_account[]> accounts;
  // Bytes of each thread's local region made read-write (geometry.local_committed points here).
  std::unique_ptr<std::atomic<std::size_t>[]> local_committed;
  std::atomic<std::size_t> symmetric_committed{0};  // per segment, same in all
  std::unique_ptr<symmetric_heap> heap;             // offsets of the symmetric region

  char* segment(int t) const noexcept {
    return base + (static_cast<std::size_t>(t) << segment_shift);
  }
  std::size_t symmetric_size() const noexcept { return segment_size / 2; }
  std::size_t local_size() const noexcept { return segment_size / 2; }
  segment_account& account(int t) const noexcept { return accounts[static_cast<std::size_t>(t)]; }
};

/// The running job's space, or null outside a job.
extern std::atomic<space*> space_instance;
inline space* space_current() noexcept {
  return space_instance.load(std::memory_order_acquire);
}

/// Creates the space for `threads` threads; `nodes[t]` is the NUMA node to bind segment t to
/// (-1: leave the default policy). `limit` caps each thread's allocated bytes (0: no cap).
/// Throws std::runtime_error when the reservation cannot be made.
void space_create(int threads, const std::vector<int>& nodes, std::size_t limit);
void space_destroy() noexcept;

/// Makes [offset, offset + bytes) of the symmetric region read-write in every segment
/// (rounded to 2 MiB steps). Thread-safe. Returns false when the region would overflow.
bool space_commit_symmetric(std::size_t end_offset) noexcept;

/// Carves `size` bytes aligned to `alignment` (a power of two) from thread t's local region,
/// read-write. Returns nullptr when the local region is exhausted. Thread-safe. Carved memory
/// is never returned to the region (jemalloc retains and reuses its extents).
void* space_local_carve(int thread, std::size_t size, std::size_t alignment) noexcept;

/// The `pgasrun --report memory` table: per thread, its node, bytes allocated and committed,
/// and the limit.
std::string space_report();

/// The thread whose segment holds p, or -1.
inline int space_owner(const space& s, const void* p) noexcept {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  const auto b = reinterpret_cast<std::uintptr_t>(s.base);
  if (a < b) return -1;
  const std::uintptr_t t = (a - b) >> s.segment_shift;
  return t < static_cast<std::uintptr_t>(s.threads) ? static_cast<int>(t) : -1;
}

}  // namespace pgas::detail
