// pgas/detail/bulk_check.hpp — the argument checks of the bulk copies (pgas/bulk.hpp, their UPC
// names, and the non-blocking transfers of pgas/nb.hpp). Not part of the API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <source_location>

#include <pgas/config.hpp>
#include <pgas/detail/export.hpp>
#include <pgas/detail/geometry.hpp>
#include <pgas/detail/sptr_word.hpp>
#include <pgas/sptr.hpp>

namespace pgas::detail {

/// How a bulk call's reports name it and its two sides ("upc_memget", "upc_memget source",
/// "upc_memget destination").
struct bulk_names {
  const char* call;
  const char* source;
  const char* destination;
};

/// The reports (misuse, pgas/error.hpp) of the checks below, out of line.
[[noreturn, gnu::cold]] PGAS_API void bulk_range_misuse(sptr<const void> p, std::size_t n,
                                                        const char* what,
                                                        const std::source_location& where);
[[noreturn, gnu::cold]] PGAS_API void bulk_null_misuse(const char* what,
                                                       const std::source_location& where);
[[noreturn, gnu::cold]] PGAS_API void bulk_overlap_misuse(const void* dst, const void* src,
                                                          std::size_t n, const char* call,
                                                          const std::source_location& where);

// Every build: n != 0 bytes at p must not start at the null pointer-to-shared (whose address
// is thread 0's first byte), p's thread must be below THREADS, and the range must lie in the
// mapped part of that thread's segment (geometry.hpp: the committed bytes of its symmetric
// and local regions, which hold every allocation; the rest of the segment, its last pages
// included, faults): a few loads and compares beside a copy, which cannot see the end of an
// allocation inside the mapped part. Checked builds: the range must lie inside one live
// allocation.
inline void check_bulk(sptr<const void> p, std::size_t n, const char* what,
                       const std::source_location& where) {
  if (n == 0) return;
  const std::uint64_t segment = geometry.segment;
  const std::uint64_t offset = p.word() & offset_mask;
  const std::uint64_t addr = p.addrfield();
  if (offset == 0 || offset >= geometry.span || n > segment || addr > segment - n) [[unlikely]] {
    bulk_range_misuse(p, n, what, where);
  }
  if constexpr (config::bounds_check) {
    check_shared_range(offset, n, what, &where);
  } else {
    const std::uint64_t end = addr + n;
    const std::uint64_t half = segment / 2;
    const std::size_t symmetric = geometry.symmetric_committed->load(std::memory_order_acquire);
    if (end > symmetric && ((addr < half && symmetric != half) ||
                            end - half > geometry.local_committed[offset >> geometry.shift].load(
                                             std::memory_order_acquire))) [[unlikely]] {
      bulk_range_misuse(p, n, what, where);
    }
  }
}

// Every build: the private side of a transfer of n != 0 bytes is not null.
inline void check_bulk_private(const void* p, const char* what, const std::source_location& where) {
  if (p == nullptr) [[unlikely]]
    bulk_null_misuse(what, where);
}

// Every build: the n bytes at dst and at src do not overlap (UPC leaves such copies undefined),
// except for an exact self-copy (dst == src), a no-op as in every UPC runtime (a thread's own
// block in an all-to-all loop). False when there is nothing to copy.
[[nodiscard]] inline bool check_bulk_overlap(const void* dst, const void* src, std::size_t n,
                                             const char* call, const std::source_location& where) {
  const auto x = reinterpret_cast<std::uintptr_t>(dst);
  const auto y = reinterpret_cast<std::uintptr_t>(src);
  if (x == y) return false;
  if ((x > y ? x - y : y - x) < n) [[unlikely]] {
    bulk_overlap_misuse(dst, src, n, call, where);
  }
  return true;
}

}  // namespace pgas::detail
