// pgas/detail/block.hpp — block sizes for pointer-to-shared arithmetic: a compile-time block
// (the compiler turns / and % into shifts or multiplies) or a run-time one, divided with a
// precomputed libdivide divider. Both give floor division of signed values, as pointer
// arithmetic walks backwards too.
//
// A run-time-block pointer carries a block_ref<dynamic_block>: one 64-bit word holding the
// address of its block's divider in the low block_ref_address_bits bits (a user-space address
// fits in 48 on x86-64 and AArch64) and the high bits of its phase above them. The packed word
// (pgas/detail/sptr_word.hpp) holds the low config::sptr_phase_bits bits of the phase, so a
// run-time block may hold up to config::max_runtime_block elements; for blocks of at most
// config::max_block elements the high bits are always 0.
#pragma once

#include <pgas/detail/export.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>

#include <libdivide.h>

#include <pgas/config.hpp>
#include <pgas/detail/geometry.hpp>

namespace pgas::detail {

/// A run-time block size with its divider. Made once per distinct size by block_divider_for()
/// and never freed, so pointers to it stay valid for the life of the process.
struct block_divider {
  std::uint64_t block = 1;
  /// ++p stays in its block with one add while the word is below this: (block - 1) << the
  /// phase's shift for blocks of at most config::max_block elements, 0 (never) for larger
  /// ones, whose phase also has bits in the block_ref.
  std::uint64_t step_limit = 0;
  libdivide::divider<std::uint64_t> div;

  std::uint64_t divide(std::uint64_t n) const noexcept { return div.divide(n); }
};

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

/// Bits of a block_ref<dynamic_block>'s word that hold the divider's address; the rest hold
/// the phase's bits above config::sptr_phase_bits.
inline constexpr unsigned block_ref_address_bits = 48;
inline constexpr std::uint64_t block_ref_address_mask =
    (std::uint64_t{1} << block_ref_address_bits) - 1;
/// Mask of the phase bits the packed word holds.
inline constexpr std::uint64_t phase_low_mask = (std::uint64_t{1} << config::sptr_phase_bits) - 1;
static_assert(config::max_runtime_block ==
              std::uint64_t{1} << (config::sptr_phase_bits + 64 - block_ref_address_bits));

template <>
struct block_ref<dynamic_block_tag> {
  // The divider's address | (phase >> sptr_phase_bits) << block_ref_address_bits. Address 0:
  // block 1 (a default-constructed pointer).
  std::uint64_t bits = 0;

  block_ref() = default;
  explicit block_ref(const block_divider& div) noexcept
      : bits(reinterpret_cast<std::uintptr_t>(&div)) {}

  const block_divider* divider() const noexcept {
    return reinterpret_cast<const block_divider*>(bits & block_ref_address_mask);
  }
  std::uint64_t value() const noexcept {
    const block_divider* d = divider();
    return d == nullptr ? 1 : d->block;
  }
  /// The word's in-block step bound (block_divider::step_limit; 0 for block 1).
  std::uint64_t step_limit() const noexcept {
    const block_divider* d = divider();
    return d == nullptr ? 0 : d->step_limit;
  }
  /// The phase's bits above config::sptr_phase_bits, as a phase (low bits zero).
  std::uint64_t phase_high() const noexcept {
    return (bits >> block_ref_address_bits) << config::sptr_phase_bits;
  }
  /// Sets the phase's high bits from a whole phase (its low bits go in the word).
  void set_phase_high(std::uint64_t phase) noexcept {
    bits = (bits & block_ref_address_mask) |
           (phase >> config::sptr_phase_bits << block_ref_address_bits);
  }
  std::uint64_t divide(std::uint64_t n) const noexcept {
    const block_divider* d = divider();
    return d == nullptr ? n : d->divide(n);
  }
  void floor_divmod(std::int64_t n, std::int64_t& q, std::int64_t& r) const noexcept {
    const block_divider* d = divider();
    if (d == nullptr) {
      q = n;
      r = 0;
      return;
    }
    detail::floor_divmod(
        n, d->block, [d](std::uint64_t v) { return d->divide(v); }, q, r);
  }
  friend bool operator==(block_ref a, block_ref b) noexcept { return a.value() == b.value(); }
};

}  // namespace pgas::detail
