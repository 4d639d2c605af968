// alloc/arenas.hpp — the jemalloc arenas behind pgas::local_alloc (UPC upc_alloc) and
// pgas::private_alloc: one arena per UPC thread whose extents are carved from that thread's
// local region (space.hpp), and one arena per NUMA node for private memory.
//
// Linking libpgas makes jemalloc the process's malloc; these arenas are extra, explicitly
// created ones, so plain malloc never hands out their memory. A process has at most 4095
// jemalloc arenas: libpgas fixes jemalloc's automatic ones at 8 (its malloc_conf), and
// config::max_threads (at most 4032) leaves room for one arena per thread and private arenas
// for up to 54 NUMA nodes. Threads cannot share a local arena: its blocks would then lie in
// another thread's segment.
#pragma once

#include <cstddef>

namespace pgas::detail {

// ---- Local arenas (one per UPC thread, live for one job) ----
//
// Thread t's arena gets all its extents from space_local_carve(t, ...), so every local
// allocation of thread t lies in segment t (NUMA-local, pgas::owner_of(p) == t), and jemalloc
// keeps freed extents (the dalloc hook opts out) and reuses them: the local region only grows.
// Each job thread has an explicit jemalloc tcache that only ever holds blocks of its own arena
// (it is used for allocations from its own arena and frees of its own blocks), which keeps the
// owner's alloc/free pair as fast as plain mallocx/dallocx; everything else bypasses tcaches.

/// Job start, on thread 0, after space_create and before any other thread starts: creates
/// `threads` arenas. Throws std::runtime_error when jemalloc refuses (then nothing is left).
void arenas_create(int threads);
/// Job end, on thread 0, after every thread has called arenas_thread_end (or is gone) and
/// before space_destroy: destroys any explicit tcache still alive, then the arenas (mallctl
/// "arena.<i>.destroy"), discarding every local allocation still live.
void arenas_destroy() noexcept;

/// On thread t, when it starts: gives it its explicit tcache (without one it still works,
/// bypassing the tcache), and makes `private_node` the node of its private allocations. Must
/// not run concurrently with another call for the same t.
void arenas_thread_start(int t, int private_node) noexcept;
/// On thread t, before it ends: flushes and destroys its tcache. Local allocations and frees
/// made by this OS thread afterwards bypass tcaches.
void arenas_thread_end(int t) noexcept;

/// `n` bytes (n == 0: a unique non-null pointer) from thread `thread`'s arena, aligned to
/// alignof(std::max_align_t), or to `alignment` (a power of two) when that is larger. Any
/// thread may allocate from any arena; the explicit tcache is used only when the caller is
/// `thread` itself. nullptr when the local region is exhausted. Never allocates from the
/// process heap on the failure path.
void* arena_local_alloc(int thread, std::size_t n, std::size_t alignment = 0) noexcept;
/// Frees a block from arena_local_alloc, from any thread (through the caller's tcache only
/// when the caller owns the block's segment).
void arena_local_free(void* p) noexcept;
/// Usable size of a block from either kind of arena (jemalloc sallocx): >= what was asked.
std::size_t arena_usable_size(const void* p) noexcept;
/// The usable size a block of `n` bytes from either kind of arena will have (what
/// arena_usable_size reports for it, n == 0 included), computed without allocating.
std::size_t arena_size_class(std::size_t n) noexcept;

// ---- Private arenas (one per NUMA node, process lifetime) ----
//
// Node n's arena maps its extents anonymously and binds them to n (MPOL_BIND) before any page
// is touched, so every page of a private allocation is on n whoever first touches it. The node
// is the calling thread's, as the job gave it to arenas_thread_start (its home NUMA node; node
// 0 when the machine reports none, or when the job runs on a described, not the current,
// machine); node 0 outside a job and in threads the job did not start. Arenas are created on first
// use and never destroyed. Private allocations bypass tcaches (a thread's caches would mix nodes),
// so this is not for hot small allocations.

/// `n` bytes (n == 0: a unique non-null pointer) aligned to alignof(std::max_align_t), or
/// nullptr when the system has no memory for it. Thread-safe, inside or outside a job.
void* arena_private_alloc(std::size_t n) noexcept;
/// Frees a block from arena_private_alloc, from any thread.
void arena_private_free(void* p) noexcept;

}  // namespace pgas::detail
