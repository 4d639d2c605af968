// pgas/bulk.hpp — bulk copies to, from and between shared memory: UPC upc_memget, upc_memput,
// upc_memcpy and upc_memset (UPC 1.3 §7.2.5).
//
// As in UPC, the shared side of each call is n consecutive bytes with affinity to ONE thread,
// starting at the pointer's address (as if it were a `shared [] char *`), whatever the
// pointer's block size. All threads share one address space, so each call is one memcpy or
// memset, from any thread to any thread. n == 0 does nothing.
//
// Contract.
//   * Collective: no.
//   * Errors (pgas/error.hpp): for n != 0, in every build, a null pointer-to-shared, a thread not
//     below THREADS, a range that runs past the end of its thread's shared segment or into a part
//     of it that no allocation of that thread ever reached (not mapped: a segment's last pages
//     until its owner's local allocations fill it), a null private pointer, or a source and
//     destination that overlap (UPC leaves that undefined) is misuse: an exact self-copy (dst ==
//     src: a thread's own block in an all-to-all loop) is a no-op, as in every UPC runtime, and
//     inside a job the job ends naming the thread, the function, the side that is wrong and the
//     call site (a few compares next to the copy). With bounds checking (config::bounds_check) the
//     range must also lie inside one live shared allocation; without it, a range that ends past its
//     allocation but inside the segment is not seen. Writing through a pointer-to-const does not
//     compile.
//   * Outside a job there is no shared memory: any n != 0 throws pgas::usage_error, and no
//     pointer-to-shared but the null one can be made there.
//   * Memory ordering: relaxed, like UPC's (the copy is plain loads and stores); order it
//     with a barrier or a lock (pgas/sync.hpp, pgas/lock.hpp).
//   * Thread safety: as memcpy and memset on the same memory.
#pragma once

#include <cstddef>
#include <cstring>
#include <source_location>

#include <pgas/config.hpp>
#include <pgas/detail/bulk_check.hpp>
#include <pgas/sptr.hpp>

namespace pgas {

namespace detail {

// The four copies, with the names their reports give the call and its sides ("pgas::memget",
// "pgas::memget source"; pgas/upc.hpp calls them with the UPC names). n == 0 checks nothing.
inline void bulk_get(void* dst, sptr<const void> src, std::size_t n, const bulk_names& names,
                     const std::source_location& where) {
  if (n == 0) return;
  check_bulk_private(dst, names.destination, where);
  check_bulk(src, n, names.source, where);
  if (!check_bulk_overlap(dst, src.get(), n, names.call, where)) return;
  if (trace_on) [[unlikely]]
    trace_access(trace_kind::bulk, trace_dir::read, src.get(), n, where);
  std::memcpy(dst, src.get(), n);
}
inline void bulk_put(sptr<void> dst, const void* src, std::size_t n, const bulk_names& names,
                     const std::source_location& where) {
  if (n == 0) return;
  check_bulk_private(src, names.source, where);
  check_bulk(dst, n, names.destination, where);
  if (!check_bulk_overlap(dst.get(), src, n, names.call, where)) return;
  if (trace_on) [[unlikely]]
    trace_access(trace_kind::bulk, trace_dir::write, dst.get(), n, where);
  std::memcpy(dst.get(), src, n);
}
inline void bulk_copy(sptr<void> dst, sptr<const void> src, std::size_t n, const bulk_names& names,
                      const std::source_location& where) {
  if (n == 0) return;
  check_bulk(src, n, names.source, where);
  check_bulk(dst, n, names.destination, where);
  if (!check_bulk_overlap(dst.get(), src.get(), n, names.call, where)) return;
  if (trace_on) [[unlikely]] {
    trace_access(trace_kind::bulk, trace_dir::read, src.get(), n, where);
    trace_access(trace_kind::bulk, trace_dir::write, dst.get(), n, where);
  }
  std::memcpy(dst.get(), src.get(), n);
}
inline void bulk_set(sptr<void> dst, int c, std::size_t n, const bulk_names& names,
                     const std::source_location& where) {
  if (n == 0) return;
  check_bulk(dst, n, names.destination, where);
  if (trace_on) [[unlikely]]
    trace_access(trace_kind::bulk, trace_dir::write, dst.get(), n, where);
  std::memset(dst.get(), c, n);
}

}  // namespace detail

/// UPC upc_memget: n bytes from shared `src` to private `dst`.
inline void memget(void* dst, sptr<const void> src, std::size_t n,
                   std::source_location where = std::source_location::current()) {
  detail::bulk_get(dst, src, n, {"pgas::memget", "pgas::memget source", "pgas::memget destination"},
                   where);
}

/// UPC upc_memput: n bytes from private `src` to shared `dst`.
inline void memput(sptr<void> dst, const void* src, std::size_t n,
                   std::source_location where = std::source_location::current()) {
  detail::bulk_put(dst, src, n, {"pgas::memput", "pgas::memput source", "pgas::memput destination"},
                   where);
}

/// UPC upc_memcpy: n bytes from shared `src` to shared `dst` (the ranges must not overlap).
inline void memcpy(sptr<void> dst, sptr<const void> src, std::size_t n,
                   std::source_location where = std::source_location::current()) {
  detail::bulk_copy(dst, src, n,
                    {"pgas::memcpy", "pgas::memcpy source", "pgas::memcpy destination"}, where);
}

/// UPC upc_memset: n bytes of shared `dst` set to (unsigned char) c.
inline void memset(sptr<void> dst, int c, std::size_t n,
                   std::source_location where = std::source_location::current()) {
  detail::bulk_set(dst, c, n, {"pgas::memset", "pgas::memset source", "pgas::memset destination"},
                   where);
}

}  // namespace pgas
