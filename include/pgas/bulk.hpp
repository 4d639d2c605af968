// pgas/bulk.hpp — bulk copies to, from and between shared memory: UPC upc_memget, upc_memput,
// upc_memcpy and upc_memset (UPC 1.3 §7.2.5).
//
// As in UPC, the shared side of each call is n consecutive bytes with affinity to ONE thread,
// starting at the pointer's address (as if it were a `shared [] char *`), whatever the
// pointer's block size. All threads share one address space, so each call is one memcpy or
// memset, from any thread to any thread.
//
// Not collective. Memory ordering: relaxed, like UPC's (the copy is a plain access); order it
// with a barrier, fence or lock.
//
// Errors: with bounds checking (config::bounds_check) a range that is not inside one live
// shared allocation, or a null pointer-to-shared, ends the job naming the thread, the
// function and the call site.
#pragma once

#include <cstddef>
#include <cstring>
#include <source_location>

#include <pgas/config.hpp>
#include <pgas/sptr.hpp>

namespace pgas {

namespace detail {
// Checked builds: the shared side of a bulk call must lie inside one live allocation.
inline void check_bulk(sptr<const void> p, std::size_t n, const char* what,
                       const std::source_location& where) {
  if constexpr (config::bounds_check) {
    if (n != 0) check_shared_range(p.word() & offset_mask, n, what, &where);
  }
}
}  // namespace detail

/// UPC upc_memget: n bytes from shared `src` to private `dst`.
inline void memget(void* dst, sptr<const void> src, std::size_t n,
                   std::source_location where = std::source_location::current()) noexcept {
  detail::check_bulk(src, n, "pgas::memget source", where);
  if (n != 0) std::memcpy(dst, src.get(), n);
}

/// UPC upc_memput: n bytes from private `src` to shared `dst`.
inline void memput(sptr<void> dst, const void* src, std::size_t n,
                   std::source_location where = std::source_location::current()) noexcept {
  detail::check_bulk(dst, n, "pgas::memput destination", where);
  if (n != 0) std::memcpy(dst.get(), src, n);
}

/// UPC upc_memcpy: n bytes from shared `src` to shared `dst` (the ranges must not overlap).
inline void memcpy(sptr<void> dst, sptr<const void> src, std::size_t n,
                   std::source_location where = std::source_location::current()) noexcept {
  detail::check_bulk(src, n, "pgas::memcpy source", where);
  detail::check_bulk(dst, n, "pgas::memcpy destination", where);
  if (n != 0) std::memcpy(dst.get(), src.get(), n);
}

/// UPC upc_memset: n bytes of shared `dst` set to (unsigned char) c.
inline void memset(sptr<void> dst, int c, std::size_t n,
                   std::source_location where = std::source_location::current()) noexcept {
  detail::check_bulk(dst, n, "pgas::memset destination", where);
  if (n != 0) std::memset(dst.get(), c, n);
}

}  // namespace pgas
