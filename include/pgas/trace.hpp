// pgas/trace.hpp — access tracing: which shared data each thread touches, from which source
// line, on which thread's memory, and how far away that memory is.
//
//   pgasrun -n 4 --trace=run.trace ./prog      (or PGAS_TRACE=run.trace)
//   pgas-trace run.trace                       per-line table, per-array and locality summaries
//
// What a traced job records. Every shared access a thread issues, counted per
//   * site: the file and line of the access (element accesses are attributed through the
//     debug information of the program: build with -g for lines; without it a site is the
//     function and offset), or of the library call;
//   * array: the shared allocation touched, named by trace_name() or else after the call that
//     allocated it (the declaration of a shared_array or static shared object, the line of
//     all_alloc / global_alloc / local_alloc);
//   * issuing thread × owning thread, and their locality class from the job's placement: same
//     thread, same L2, same L3, same NUMA node, other NUMA node, other package;
//   * kind (element, bulk copy, non-blocking copy, atomic, collective, lock, barrier, fence,
//     software-cache traffic, coalescing-schedule traffic) and direction (read, write, update,
//     sync), with the calls and bytes.
// Element accesses (*p, p->, p[i], A(i, j), A[i], table(i, j)) hand the program a reference, so
// the library cannot see whether it is read or written: a traced element access is classified
// at the thread's next recorded event, a write when the element's bytes changed in between and
// a read otherwise (storing the value already there counts as a read; `A[i] += 1` as a write).
// Barrier, lock and collective waits are timed per site, and the first waits of each thread
// (PGAS_TRACE_MEMORY bounds them) form a timeline. Software caches (pgas/cache.hpp) add their
// hits, misses and written-back bytes.
//
// Memory. Each thread counts into its own table, bounded by PGAS_TRACE_MEMORY; when a table is
// full, new keys are counted without their site and array, and the trace file and the end of
// the job say how many accesses lost their detail. The tables are merged when the job ends and
// the file is written by renaming a complete file over its name. A file that cannot be written
// is found before any thread starts: the job does not run (pgasrun exits 2).
//
// Cost. Element accesses carry their hooks only in programs compiled with
// -DPGAS_TRACE_ELEMENTS=1 (pgas/config.hpp says why); every library call is traced whatever the
// program was compiled with, testing one flag while no job traces. While tracing, a traced
// element access costs a call and a look-up in the thread's table (the README gives figures).
//
// Contract.
//   * Collective: no; every function acts on the calling thread only.
//   * Thread safety: any thread; outside a job, or when the job does not trace, they do nothing.
//   * Errors: trace_name of an address outside the shared space is misuse.
#pragma once

#include <cstdint>
#include <source_location>
#include <string_view>

#include <pgas/detail/export.hpp>
#include <pgas/detail/trace_hook.hpp>

namespace pgas {

/// The kinds of events a thread records (combine with |). All by default.
enum class trace_mask : std::uint32_t {
  none = 0,
  element = 1u << 0,
  bulk = 1u << 1,
  nonblocking = 1u << 2,
  atomic = 1u << 3,
  collective = 1u << 4,
  lock = 1u << 5,
  barrier = 1u << 6,
  fence = 1u << 7,
  cache = 1u << 8,
  schedule = 1u << 9,
  all = (1u << 10) - 1,
};
constexpr trace_mask operator|(trace_mask a, trace_mask b) noexcept {
  return static_cast<trace_mask>(static_cast<std::uint32_t>(a) | static_cast<std::uint32_t>(b));
}
constexpr trace_mask operator&(trace_mask a, trace_mask b) noexcept {
  return static_cast<trace_mask>(static_cast<std::uint32_t>(a) & static_cast<std::uint32_t>(b));
}

/// True when the running job traces (pgasrun --trace), whatever the calling thread's mask.
PGAS_API bool tracing() noexcept;

/// The calling thread's mask: what it records from now on (as Berkeley UPC's
/// bupc_trace_setmask). Returns the previous mask. Every thread starts each job with
/// trace_mask::all.
PGAS_API trace_mask trace_set_mask(trace_mask m) noexcept;
PGAS_API trace_mask trace_get_mask() noexcept;

/// Pauses (or narrows) the calling thread's tracing for a scope and restores the previous mask
/// at its end:
///   { pgas::trace_scope quiet;  setup(); }                          // nothing recorded
///   { pgas::trace_scope only(pgas::trace_mask::element); solve(); } // element accesses only
class PGAS_API trace_scope {
 public:
  explicit trace_scope(trace_mask m = trace_mask::none) noexcept;
  ~trace_scope();
  trace_scope(const trace_scope&) = delete;
  trace_scope& operator=(const trace_scope&) = delete;

 private:
  trace_mask saved_;
};

/// Names the shared allocation that holds `shared` (any address inside it) in the trace, e.g.
/// `pgas::trace_name(A.ptr(0, 0).get(), "grid")` or `pgas::trace_name(p.get(), "edges")`. The name
/// is copied. Does nothing when the job does not trace. Misuse when the address is not in the
/// shared space.
PGAS_API void trace_name(const void* shared, std::string_view name,
                         std::source_location where = std::source_location::current());

}  // namespace pgas
