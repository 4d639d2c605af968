// pgas/detail/block.hpp — block sizes for pointer-to-shared arithmetic: a compile-time block
// (the compiler turns / and % into shifts or multiplies) or a run-time one, divided with a
// precomputed libdivide divider. Both give floor division of signed values, as pointer
// arithmetic walks backwards too.
//
// A run-time-block pointer carries a block_ref<dynamic_block>: one 64-bit word with its
// block's index in the process's table of dividers, and what ++ needs without a load — the
// in-block step bound, in the same bits as the packed word's phase field, so that the step is
// `w < (bits & ~offset_mask)`, and for a block of more than config::max_block elements the
// phase's bits above the word's phase field:
//
//     63 ........ 64-P | 63-P .......... 26 | 25 .. 24 | 23 ........... 0
//      step bound      | phase >> P (large)  |  flags   |  divider index
//
// (P = config::sptr_phase_bits; flags: large block, indefinite block). So a run-time block
// may hold up to config::max_runtime_block = 2^38 elements.
#pragma once

#include <pgas/detail/export.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>

#include <libdivide.h>

#include <pgas/config.hpp>
#include <pgas/detail/geometry.hpp>

namespace pgas::detail {

/// A run-time block size with its divider: an entry of block_dividers, made once per distinct
/// size by block_divider_for() and never changed after, so that a pointer may name it by its
/// index. Entry 0 is block 1 (what a default-constructed pointer names). Plain data, zero
/// until made, so that the table below is zero-initialised at compile time: its pages are
/// touched only as entries are made, not when the library loads.
struct block_divider {
  std::uint64_t block;
  libdivide::libdivide_u64_t div;  // libdivide's branchfull divider for `block`

  std::uint64_t divide(std::uint64_t n) const noexcept {
    return libdivide::libdivide_u64_do(n, &div);
  }
};

/// The table of run-time block sizes (distinct sizes a process may use: block_sizes_max).
inline constexpr std::size_t block_sizes_max = std::size_t{1} << 18;
PGAS_API extern constinit block_divider block_dividers[block_sizes_max];

/// The shared divider for block size `b` (0 <= b <= config::max_runtime_block; the caller
/// checks). Thread-safe.
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

inline constexpr unsigned block_ref_phase_shift = 64 - config::sptr_phase_bits;
inline constexpr std::uint64_t block_ref_index_mask = (std::uint64_t{1} << 24) - 1;
inline constexpr std::uint64_t block_ref_large = std::uint64_t{1} << 24;
inline constexpr std::uint64_t block_ref_indefinite = std::uint64_t{1} << 25;
inline constexpr unsigned block_ref_high_shift = 26;
inline constexpr std::uint64_t block_ref_high_mask =
    ((std::uint64_t{1} << (block_ref_phase_shift - block_ref_high_shift)) - 1)
    << block_ref_high_shift;
/// Mask of the phase bits the packed word holds, and of the step bound's bits.
inline constexpr std::uint64_t phase_low_mask = (std::uint64_t{1} << config::sptr_phase_bits) - 1;
inline constexpr std::uint64_t block_ref_step_mask = phase_low_mask << block_ref_phase_shift;
static_assert(config::max_runtime_block == std::uint64_t{1}
                                               << (config::sptr_phase_bits + block_ref_phase_shift -
                                                   block_ref_high_shift));
static_assert(block_sizes_max - 1 <= block_ref_index_mask);

template <>
struct block_ref<dynamic_block_tag> {
  std::uint64_t bits = 0;  // see the top of this header; 0: block 1, phase 0

  block_ref() = default;
  /// Block `div` (an entry of block_dividers), phase 0.
  explicit block_ref(const block_divider& div) noexcept
      : bits(static_cast<std::uint64_t>(&div - block_dividers)) {
    const std::uint64_t b = div.block;
    if (b == 0) {
      bits |= block_ref_indefinite;
    } else if (b <= config::max_block) {
      bits |= (b - 1) << block_ref_phase_shift;
    } else {
      bits |= block_ref_large;
      set_phase(0);
    }
  }

  const block_divider& divider() const noexcept {
    return block_dividers[bits & block_ref_index_mask];
  }
  std::uint64_t value() const noexcept { return divider().block; }
  /// ++ steps within the block with one add while the packed word is below this.
  std::uint64_t step_limit() const noexcept { return bits & block_ref_step_mask; }
  /// The phase's bits above config::sptr_phase_bits, as a phase (low bits zero).
  std::uint64_t phase_high() const noexcept {
    return (bits & block_ref_high_mask) >> block_ref_high_shift << config::sptr_phase_bits;
  }
  /// Records a new whole phase (below the block size): a large block keeps its high bits and
  /// the step bound that goes with them; for other blocks nothing changes.
  void set_phase(std::uint64_t phase) noexcept {
    if ((bits & block_ref_large) == 0) return;
    const std::uint64_t last = value() - 1;
    const std::uint64_t high = phase >> config::sptr_phase_bits;
    // Below the block's last high part a step may go up to the word's largest phase field;
    // in the last one, up to the block's last element.
    const std::uint64_t bound =
        high < last >> config::sptr_phase_bits ? phase_low_mask : last & phase_low_mask;
    bits = (bits & (block_ref_index_mask | block_ref_large)) | (high << block_ref_high_shift) |
           (bound << block_ref_phase_shift);
  }
  std::uint64_t divide(std::uint64_t n) const noexcept { return divider().divide(n); }
  void floor_divmod(std::int64_t n, std::int64_t& q, std::int64_t& r) const noexcept {
    const block_divider& d = divider();
    detail::floor_divmod(
        n, d.block, [&d](std::uint64_t v) { return d.divide(v); }, q, r);
  }
  friend bool operator==(block_ref a, block_ref b) noexcept { return a.value() == b.value(); }
};

}  // namespace pgas::detail
