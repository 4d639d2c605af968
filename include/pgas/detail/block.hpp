// pgas/detail/block.hpp — block sizes for pointer-to-shared arithmetic: a compile-time block
// (the compiler turns / and % into shifts or multiplies) or a run-time one, divided with a
// precomputed libdivide divider. Both give floor division of signed values, as pointer
// arithmetic walks backwards too.
#pragma once

#include <pgas/detail/export.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>

#include <libdivide.h>

#include <pgas/detail/geometry.hpp>

namespace pgas::detail {

/// A run-time block size with its divider. Made once per distinct size by block_divider_for()
/// and never freed, so pointers to it stay valid for the life of the process.
struct block_divider {
  std::uint64_t block = 1;
  libdivide::divider<std::uint64_t> div;

  std::uint64_t divide(std::uint64_t n) const noexcept { return div.divide(n); }
};

/// The shared divider for block size `b` (1 <= b <= config::max_block; the caller checks).
/// Thread-safe.
PGAS_API const block_divider& block_divider_for(std::uint64_t b);

/// Floor division of a signed value by a positive divisor given as an unsigned `divide`
/// function: q = floor(n / d), r = n - q * d in [0, d).
template <class Divide>
inline void floor_divmod(std::int64_t n, std::uint64_t d, Divide divide, std::int64_t& q,
                         std::int64_t& r) noexcept {
  if (n >= 0) {
    q = static_cast<std::int64_t>(divide(static_cast<std::uint64_t>(n)));
  } else {
    const std::uint64_t m = static_cast<std::uint64_t>(-(n + 1));  // |n| - 1, no overflow
    q = -static_cast<std::int64_t>(divide(m)) - 1;
  }
  r = n - q * static_cast<std::int64_t>(d);
}

/// Floor divmod by THREADS of the running job.
inline void floor_divmod_threads(std::int64_t n, std::int64_t& q, std::int64_t& r) noexcept {
  const shared_geometry& g = geometry;
  floor_divmod(
      n, g.threads, [&g](std::uint64_t v) { return g.threads_div.divide(v); }, q, r);
}

/// The block size a pointer type carries: nothing for a compile-time B, a pointer to the
/// shared divider for a run-time one.
template <std::size_t B>
struct block_ref {
  static constexpr std::uint64_t value() noexcept { return B; }
  void floor_divmod(std::int64_t n, std::int64_t& q, std::int64_t& r) const noexcept {
    detail::floor_divmod(
        n, B, [](std::uint64_t v) { return v / B; }, q, r);
  }
  friend constexpr bool operator==(block_ref, block_ref) noexcept { return true; }
};

inline constexpr std::size_t dynamic_block_tag = ~std::size_t{0};

template <>
struct block_ref<dynamic_block_tag> {
  const block_divider* d = nullptr;  // null: block 1 (a default-constructed pointer)

  std::uint64_t value() const noexcept { return d == nullptr ? 1 : d->block; }
  void floor_divmod(std::int64_t n, std::int64_t& q, std::int64_t& r) const noexcept {
    if (d == nullptr) {
      q = n;
      r = 0;
      return;
    }
    detail::floor_divmod(
        n, d->block, [this](std::uint64_t v) { return d->divide(v); }, q, r);
  }
  friend bool operator==(block_ref a, block_ref b) noexcept { return a.value() == b.value(); }
};

}  // namespace pgas::detail
