// pgas/alloc.hpp — the shared space and allocating in it (UPC 1.3 §7.2.2).
//
// At start-up the job reserves one range of virtual memory holding THREADS equal segments of
// segment_size() bytes (a power of two, generous; physical pages are committed only when
// used). Segment t is bound to thread t's NUMA node with libnuma and holds everything with
// affinity to thread t: thread t's part of every collective allocation, and its local
// allocations. Each segment has two regions:
//   [0, segment_size/2)             the symmetric region: collective and global allocations sit
//                                   at the SAME offset in every segment, so a block-cyclic
//                                   array's part on thread t is at one offset in segment t;
//   [segment_size/2, segment_size)  the local region: pgas::local_alloc, served by a jemalloc
//                                   arena per thread whose extents are carved from here.
//
// Layout of a distributed allocation (upc_all_alloc / upc_global_alloc of nblocks blocks of
// nbytes): block i lives on thread i % THREADS, at byte (i / THREADS) * nbytes of that
// thread's part. Every thread's part is ceil(nblocks / THREADS) * nbytes bytes.
//
// Placement (cache colouring). all_alloc() and global_alloc() colour their offsets: the k-th
// allocation of the job starts at k * 5440 bytes (85 cache lines) modulo min(64 KiB,
// bit_ceil(part)), so equal-sized allocations made one after the other are not a power of two
// apart and do not fight over cache sets: any two with parts of at least 4 KiB made fewer than
// 64 allocations apart start at different addresses modulo 4 KiB, and with parts of at least
// 64 KiB made fewer than 1024 apart, modulo 64 KiB. Offsets stay multiples of 64 bytes. The
// bytes skipped (under one 64 KiB window per allocation) are free space that later allocations
// fill; memory_usage_of() counts them in `committed`, not in `allocated`. local_alloc() is
// jemalloc's placement (large blocks start at a pseudo-random cache line of their page).
//
// Contract.
//   * Collective: all_alloc() and all_free(), with the same arguments on every thread (checked).
//     Every other call is local to the calling thread.
//   * Errors (pgas/error.hpp): running out of shared memory (the reservation, or the
//     per-thread limit set with PGAS_SHARED_HEAP_SIZE / pgasrun --shared-heap) throws
//     pgas::bad_shared_alloc; the job goes on if the program catches it. Misuse — collective
//     calls whose arguments differ between threads, freeing a pointer that is not a live shared
//     allocation — ends the job naming thread, file and line (always on for collective
//     mismatches, double frees of distributed allocations and foreign pointers; double frees
//     of local allocations are caught in checked builds, -Ddebug_level>=1). private_alloc()
//     throws std::bad_alloc.
//   * Outside a job there is no shared space: all_alloc(), global_alloc(), local_alloc(),
//     free() (but free(nullptr), which does nothing) and all_free() throw pgas::usage_error;
//     segment_size() is 0, segment_base() nullptr, owner_of() -1 and memory_usage_of() all
//     zeros. locate(), private_alloc() and private_free() work anywhere (outside a job private
//     memory comes from NUMA node 0).
//   * Memory ordering: all_alloc() and all_free() each contain a barrier. When all_alloc()
//     returns, every thread holds the allocation, whose contents are unspecified (memory is
//     reused after a free, not cleared); each owner first-touches its part on the way out, so
//     write into another thread's part only after a following barrier. all_free() frees the
//     memory after every thread's accesses before its call. The other calls do not
//     synchronise: pass a global_alloc() or local_alloc() result to other threads through
//     shared data ordered by a barrier or a lock.
//   * Thread safety: every call is thread-safe; a shared_alloc is a value.
#pragma once

#include <pgas/detail/export.hpp>

#include <cstddef>
#include <cstdint>
#include <new>
#include <source_location>
#include <string>

#include <pgas/sptr.hpp>

namespace pgas {

/// Thrown when a shared allocation cannot be satisfied. Derives from std::bad_alloc so code
/// that handles allocation failure generically keeps working.
class PGAS_API bad_shared_alloc : public std::bad_alloc {
 public:
  bad_shared_alloc(int thread, std::size_t requested, std::size_t available, std::string why);
  /// "pgas: thread 3: cannot allocate 1048576 bytes of shared memory: per-thread limit
  /// PGAS_SHARED_HEAP_SIZE reached (524288 bytes left)".
  const char* what() const noexcept override { return message_.c_str(); }
  int thread() const noexcept { return thread_; }
  std::size_t requested() const noexcept { return requested_; }
  std::size_t available() const noexcept { return available_; }

 private:
  int thread_;
  std::size_t requested_;
  std::size_t available_;
  std::string message_;
};

/// A distributed allocation: nblocks blocks of block_bytes dealt round-robin over threads,
/// at one offset in every segment (UPC's `shared [nbytes] char *` result of upc_all_alloc).
/// A small value type; copies refer to the same memory.
///
/// Like UPC's `shared void *` result, it converts implicitly to any pointer-to-shared with a
/// compile-time block (and to sptr<void>): the pointer to the allocation's start — thread 0,
/// phase 0, addrfield offset() — which the pointer's own block then walks:
///
///   pgas::sptr<int> p = pgas::all_alloc(pgas::threads(), sizeof(int));  // shared int *p
///   p[t] = t;                                              // thread t's int
///   pgas::sptr<double, 4> q = pgas::all_alloc(pgas::threads(), 4 * sizeof(double));
///
/// (UPC leaves it to the program to pick a pointer type that matches nbytes, and so does
/// this.) An empty allocation gives the null pointer-to-shared. A run-time-block pointer is
/// sptr<T, pgas::dynamic_block>::from_parts(0, a.offset(), 0, block).
class PGAS_API shared_alloc {
 public:
  shared_alloc() noexcept = default;

  /// Offset of every thread's part within its segment (the same in all segments).
  std::size_t offset() const noexcept { return offset_; }
  std::size_t nblocks() const noexcept { return nblocks_; }
  std::size_t block_bytes() const noexcept { return block_bytes_; }
  /// Bytes of each thread's part: ceil(nblocks / THREADS) * block_bytes.
  std::size_t part_bytes() const noexcept { return part_bytes_; }
  explicit operator bool() const noexcept { return nblocks_ != 0; }
  friend bool operator==(const shared_alloc&, const shared_alloc&) = default;

  /// Start of thread t's part (one address space: a plain pointer any thread may use).
  void* part(int thread) const noexcept;
  /// Start of block i, on thread i % THREADS.
  void* block(std::size_t i) const noexcept;

  /// The allocation's start as a pointer-to-shared (see above). Outside a job, where no
  /// allocation exists, only an empty one converts (to the null pointer).
  template <class T, std::size_t B>
  requires(B != dynamic_block) operator sptr<T, B>() const noexcept {
    return sptr<T, B>::from_word(offset_);
  }

 private:
  friend shared_alloc detail_make_shared_alloc(std::size_t, std::size_t, std::size_t,
                                               std::size_t) noexcept;
  std::size_t offset_ = 0;
  std::size_t nblocks_ = 0;
  std::size_t block_bytes_ = 0;
  std::size_t part_bytes_ = 0;
};

/// Collective (UPC `upc_all_alloc`): every thread calls it with the same arguments and gets
/// the same allocation. Each thread's part is committed and first touched by its owner, so
/// its pages are on the owner's NUMA node. Arguments that differ between threads end the job
/// naming each thread and its values. nblocks == 0 or nbytes == 0 gives an empty allocation.
/// Throws bad_shared_alloc (on every thread) when the space or a thread's limit is exceeded.
PGAS_API shared_alloc all_alloc(std::size_t nblocks, std::size_t nbytes,
                                std::source_location where = std::source_location::current());

/// Not collective (UPC `upc_global_alloc`): the calling thread alone allocates a distributed
/// allocation with the same layout as all_alloc. Pages are committed and bound to each owner's
/// node (by the segment's memory policy) and appear on first touch. Thread-safe.
PGAS_API shared_alloc global_alloc(std::size_t nblocks, std::size_t nbytes,
                                   std::source_location where = std::source_location::current());

/// Not collective (UPC `upc_alloc`): `nbytes` in the calling thread's own segment, from its
/// jemalloc arena (NUMA-local; freed memory is reused). Aligned to alignof(std::max_align_t).
/// nbytes == 0 returns a unique non-null pointer. Thread-safe. `where` names the allocation in
/// a trace (pgas/trace.hpp).
PGAS_API void* local_alloc(std::size_t nbytes,
                           std::source_location where = std::source_location::current());
/// As above, aligned to `alignment` bytes (a power of two; 0 or less than
/// alignof(std::max_align_t) gives the default), as aligned_alloc: e.g. 2 MiB, a transparent
/// huge page, for an array that should start on one. What alignment skips before and after the
/// block stays free in the arena and is never touched. An alignment that is not a power of two
/// is misuse, named at `where`; one the local region cannot give throws bad_shared_alloc.
PGAS_API void* local_alloc(std::size_t nbytes, std::size_t alignment,
                           std::source_location where = std::source_location::current());

/// local_alloc as UPC's upc_alloc returns it: a `shared void *` with affinity to the calling
/// thread (phase 0), which converts implicitly to any pointer-to-shared with a compile-time
/// block — `shared [] T *` (pgas::indefinite) walks the allocation on this thread:
///
///   pgas::sptr<int, pgas::indefinite> p = pgas::local_alloc_shared(n * sizeof(int));
///   p[n - 1] = 7;
///   pgas::free(p);
///
/// Same errors and thread safety as local_alloc.
inline sptr<void> local_alloc_shared(std::size_t nbytes,
                                     std::source_location where = std::source_location::current()) {
  return sptr_from(static_cast<char*>(local_alloc(nbytes, where)));
}

/// Frees a distributed allocation (UPC `upc_free` on upc_all_alloc/upc_global_alloc memory):
/// one thread calls it. Freeing one that is not live ends the job (double free).
PGAS_API void free(shared_alloc a, std::source_location where = std::source_location::current());

/// Frees a local allocation (UPC `upc_free` on upc_alloc memory), from any thread. nullptr is
/// ignored. A pointer outside the shared space ends the job (foreign pointer). In the checked
/// build (config::bounds_check) a pointer that is not a live local allocation — freed twice,
/// or never returned by local_alloc — ends the job too; a release build does not check it, and
/// a double free there corrupts the allocator (the memory may be handed out twice), as free()
/// does in C.
PGAS_API void free(void* p, std::source_location where = std::source_location::current());
/// Frees a local allocation given as a pointer-to-shared (UPC `upc_free` of a `shared void *`
/// from upc_alloc): as free(void*) of its address; the null pointer-to-shared is ignored. A
/// pointer into a distributed allocation is misuse (free its pgas::shared_alloc).
template <class T, std::size_t B>
void free(const sptr<T, B>& p, std::source_location where = std::source_location::current()) {
  if (p) free(const_cast<void*>(static_cast<const void*>(p.get())), where);
}

/// Collective (UPC `upc_all_free`): every thread passes the same allocation; it is freed once,
/// after every thread has called and before any returns, so that on return the space is free
/// for any thread's next allocation (and a checked build rejects any access to it).
PGAS_API void all_free(shared_alloc a,
                       std::source_location where = std::source_location::current());

/// Typed forms: n elements of T per block.
template <class T>
shared_alloc all_alloc_of(std::size_t nblocks, std::size_t elems_per_block,
                          std::source_location where = std::source_location::current()) {
  return all_alloc(nblocks, elems_per_block * sizeof(T), where);
}
template <class T>
T* local_alloc_of(std::size_t n) {
  return static_cast<T*>(local_alloc(n * sizeof(T)));
}

/// The shared space's geometry.
PGAS_API std::size_t segment_size() noexcept;      // bytes per segment (a power of two)
PGAS_API void* segment_base(int thread) noexcept;  // start of thread t's segment
/// The thread whose segment holds `p`, or -1 for an address outside the shared space.
PGAS_API int owner_of(const void* p) noexcept;

/// Per-thread accounting. `allocated`: bytes live in the thread's segment (its part of
/// distributed allocations plus its local allocations, as requested). `committed`: bytes of
/// the segment made usable (mapped read-write) so far. `limit`: the per-thread cap
/// (PGAS_SHARED_HEAP_SIZE), or the region size when none is set.
struct memory_usage {
  std::size_t allocated = 0;
  std::size_t committed = 0;
  std::size_t limit = 0;
};
PGAS_API memory_usage memory_usage_of(int thread) noexcept;

/// Where a shared (or any) address's memory is. `bound_node`: the NUMA node its memory policy
/// binds it to (get_mempolicy MPOL_F_ADDR), or -1 if it is not bound. `page_node`: the node
/// its page is on now (move_pages query), or -1 if the page has not been touched yet.
struct memory_location {
  int bound_node = -1;
  int page_node = -1;
};
PGAS_API memory_location locate(const void* p) noexcept;

/// Private (non-shared) memory from a jemalloc arena of the calling thread's NUMA node, with
/// pages bound to that node. Thread-safe; private_free accepts pointers from any thread.
PGAS_API void* private_alloc(std::size_t nbytes);
PGAS_API void private_free(void* p) noexcept;

}  // namespace pgas
