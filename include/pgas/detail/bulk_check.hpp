// pgas/detail/bulk_check.hpp — the range check of the bulk copies (pgas/bulk.hpp, and the
// shared side of pgas/nb.hpp's transfers). Not part of the API.
#pragma once

#include <cstddef>
#include <source_location>

#include <pgas/config.hpp>
#include <pgas/detail/export.hpp>
#include <pgas/detail/geometry.hpp>
#include <pgas/detail/sptr_word.hpp>
#include <pgas/sptr.hpp>

namespace pgas::detail {

/// Misuse (pgas/error.hpp) for the shared side `what` of a bulk call of n bytes that
/// check_bulk refused: no job, the null pointer-to-shared, a thread not below THREADS, or a
/// range that runs past the end of its thread's segment.
[[noreturn, gnu::cold]] PGAS_API void bulk_range_misuse(sptr<const void> p, std::size_t n,
                                                        const char* what,
                                                        const std::source_location& where);

// Every build: n != 0 bytes at p must not start at the null pointer-to-shared (whose address
// is thread 0's first byte), p's thread must be below THREADS, and the range must end inside
// that thread's segment: a few compares beside a copy, which cannot see the end of an
// allocation inside the segment. Checked builds: the range must lie inside one live
// allocation.
inline void check_bulk(sptr<const void> p, std::size_t n, const char* what,
                       const std::source_location& where) {
  if (n == 0) return;
  const std::uint64_t segment = geometry.segment;
  if (p.word() == 0 || (p.word() & offset_mask) >= geometry.span || n > segment ||
      p.addrfield() > segment - n) [[unlikely]] {
    bulk_range_misuse(p, n, what, where);
  }
  if constexpr (config::bounds_check) check_shared_range(p.word() & offset_mask, n, what, &where);
}

}  // namespace pgas::detail
