// pgas/detail/sptr_word.hpp — the packed word of a pointer-to-shared (pgas/sptr.hpp) and the
// block-cyclic arithmetic on it that sptr's ++, +=, - and comparisons inline. Not part of the
// API.
//
// One 64-bit word:
//
//     63 ........ 64-P | 63-P ........................................ 0
//          phase       |  offset = thread * segment_size + address in segment
//
// where P = config::sptr_phase_bits. Segments are powers of two laid end to end in one
// reservation (pgas/alloc.hpp), so
//     threadof  = offset >> log2(segment_size)
//     address   = shared space base + offset          (dereference: an AND and an ADD)
// and no table or divide is ever needed to find an element. The word 0 is the null
// pointer-to-shared. For B = 1 and indefinite the phase bits are always 0, so the word is the
// offset itself. A run-time-B pointer carries its block as a block_ref (pgas/detail/block.hpp)
// beside the same word; for a block above config::max_block the word holds the phase's low P
// bits and the block_ref its high bits (full_phase, with_phase).
//
// Division by B and by THREADS never uses a hardware divide: a compile-time B divides by a
// constant, a run-time B and THREADS use precomputed libdivide dividers (shifts for powers of
// two), and a step within a block is one add.
#pragma once

#include <pgas/detail/export.hpp>

#include <cstddef>
#include <cstdint>
#include <source_location>
#include <type_traits>

#include <pgas/config.hpp>
#include <pgas/detail/block.hpp>
#include <pgas/detail/geometry.hpp>

namespace pgas::detail {

inline constexpr unsigned phase_shift = config::sptr_offset_bits;
inline constexpr std::uint64_t offset_mask = (std::uint64_t{1} << phase_shift) - 1;
inline constexpr std::uint64_t phase_one = std::uint64_t{1} << phase_shift;

/// Block sizes whose pointers have no phase: 1 and indefinite (0).
template <std::size_t B>
inline constexpr bool word_phaseless = B == 0 || B == 1;

/// Packs thread, address and phase, checking them against the job's shared space and the
/// block (always: it is not the fast path). Misuse (pgas/error.hpp) when one is out of range,
/// or outside a job.
PGAS_API std::uint64_t sptr_pack(int thread, std::size_t addrfield, std::size_t phase,
                                 std::uint64_t block, const std::source_location& where);

/// Misuse: converting a run-time-block pointer-to-shared whose block is `from` to a
/// compile-time block `to` (always checked; names the conversion's call site).
[[noreturn]] PGAS_API void sptr_block_mismatch(std::uint64_t from, std::uint64_t to,
                                               const std::source_location& where);

/// The offset of address p from the start of the shared space (sptr_from). Misuse when p is
/// not in it, or outside a job.
PGAS_API std::uint64_t sptr_offset_of(const void* p, const std::source_location& where);

/// Conversions that keep everything: adding const, and compile-time B → run-time B.
template <class T, std::size_t B, class U, std::size_t B2>
inline constexpr bool sptr_implicit =
    !std::is_void_v<U> && std::is_same_v<std::remove_const_t<T>, std::remove_const_t<U>> &&
    (std::is_const_v<T> || !std::is_const_v<U>)&&(B == B2 || B == dynamic_block_tag);

/// The offset field of a word with block size B.
template <std::size_t B>
inline std::uint64_t word_offset(std::uint64_t w) noexcept {
  if constexpr (word_phaseless<B>) {
    return w;
  } else {
    return w & offset_mask;
  }
}

/// The phase field of a word with block size B (0 for B = 1 and indefinite).
template <std::size_t B>
inline std::size_t word_phase(std::uint64_t w) noexcept {
  if constexpr (word_phaseless<B>) {
    return 0;
  } else {
    return w >> phase_shift;
  }
}

/// The whole phase of a pointer: the word's phase field, and for a run-time block the high
/// bits its block_ref carries.
template <std::size_t B>
inline std::uint64_t full_phase(std::uint64_t w, const block_ref<B>& blk) noexcept {
  if constexpr (B == dynamic_block_tag) {
    return blk.phase_high() | (w >> phase_shift);
  } else {
    return word_phase<B>(w);
  }
}

/// The word with phase field `phase` (below the block size) and offset `off`; for a run-time
/// block the phase's high bits go to blk.
template <std::size_t B>
inline std::uint64_t with_phase(std::uint64_t off, std::uint64_t phase,
                                block_ref<B>& blk) noexcept {
  if constexpr (B == dynamic_block_tag) {
    blk.set_phase(phase);
    return ((phase & phase_low_mask) << phase_shift) | off;
  } else {
    return (phase << phase_shift) | off;
  }
}

/// The offset of the first element of the next block, from the offset `off` of the last
/// element of a block of `block` elements of S bytes: the next thread, back to the block's
/// start; after the last thread, the next course on thread 0. As for B = 1, the test reads
/// the offset itself rather than the sum.
template <std::uint64_t S>
inline std::uint64_t next_block_offset(std::uint64_t off, std::uint64_t block) noexcept {
  const shared_geometry& g = geometry;
  const std::uint64_t back = (block - 1) * S;
  return off >= g.span - g.segment + back ? off - back + g.segment - g.span + block * S
                                          : off - back + g.segment;
}

/// A packed word and the block_ref word beside it: what the out-of-line ++ of a large
/// run-time block returns, in registers (a reference would keep the caller's pointer in
/// memory).
struct word_pair {
  std::uint64_t w;
  std::uint64_t bits;
};

/// ++p for a run-time block of more than config::max_block elements where the fast step does
/// not apply: the phase's low bits carry into the block_ref's, or the block ends.
template <std::uint64_t S>
[[gnu::noinline]] word_pair word_increment_large(std::uint64_t w, std::uint64_t bits) noexcept {
  block_ref<dynamic_block_tag> blk;
  blk.bits = bits;
  const std::uint64_t ph = full_phase(w, blk);
  const std::uint64_t off = w & offset_mask;
  if (ph + 1 < blk.value()) {
    w = with_phase(off + S, ph + 1, blk);
  } else {
    w = with_phase(next_block_offset<S>(off, blk.value()), 0, blk);
  }
  return {w, blk.bits};
}

/// ++p for elements of S bytes and block size B (blk: the run-time block for dynamic_block).
template <std::size_t B, std::uint64_t S>
inline void word_increment(std::uint64_t& w, block_ref<B>& blk) noexcept {
  const shared_geometry& g = geometry;
  if constexpr (B == 0) {
    w += S;
  } else if constexpr (B == 1) {
    // Next thread, same address; after the last thread, the next address on thread 0.
    // The test reads the old word, not w + segment, so the compare and both candidate
    // sums run side by side: a loop of ++p carries a 2-cycle chain through w, not 3.
    w = w >= g.span - g.segment ? w - (g.span - g.segment - S) : w + g.segment;
  } else {
    // phase + 1 < B, read off the word: the offset bits are below phase_one, so
    // w < (B - 1) * phase_one exactly when the phase is below B - 1. [[likely]] keeps the
    // in-block step on the fall-through path: one taken branch per element, not two. A
    // run-time block carries the bound in its block_ref (0 for indefinite blocks; for large
    // ones, where the phase's low bits would carry, or the block ends).
    std::uint64_t limit;
    if constexpr (B == dynamic_block_tag) {
      limit = blk.step_limit();
    } else {
      limit = (B - 1) * phase_one;
    }
    if (w < limit) [[likely]] {
      w += phase_one + S;
      return;
    }
    std::uint64_t block = B;
    if constexpr (B == dynamic_block_tag) {
      const std::uint64_t bits = blk.bits;
      if ((bits & (block_ref_large | block_ref_indefinite)) != 0) [[unlikely]] {
        if ((bits & block_ref_indefinite) != 0) {
          w += S;
        } else {
          const word_pair r = word_increment_large<S>(w, bits);
          w = r.w;
          blk.bits = r.bits;
        }
        return;
      }
      block = (bits >> block_ref_phase_shift) + 1;  // the bound is block - 1
    }
    w = next_block_offset<S>(w & offset_mask, block);  // phase 0 of the next block
  }
}

/// p += n (UPC 1.3 §6.4.2p2-3) for elements of S bytes and block size B.
template <std::size_t B, std::uint64_t S>
inline void word_advance(std::uint64_t& w, block_ref<B>& blk, std::ptrdiff_t n) noexcept {
  if constexpr (B == 0) {
    w += static_cast<std::uint64_t>(n) * S;
  } else {
    const shared_geometry& g = geometry;
    const std::uint64_t o = word_offset<B>(w);
    const auto t = static_cast<std::int64_t>(o >> g.shift);
    const auto a = static_cast<std::int64_t>(o & (g.segment - 1));
    if constexpr (B == 1) {
      std::int64_t courses, thread;
      floor_divmod_threads(t + n, courses, thread);
      w = (static_cast<std::uint64_t>(thread) << g.shift) +
          static_cast<std::uint64_t>(a + courses * static_cast<std::int64_t>(S));
    } else {
      const auto b = static_cast<std::int64_t>(blk.value());
      if (b == 0) {  // a run-time indefinite block
        w += static_cast<std::uint64_t>(n) * S;
        return;
      }
      const auto ph = static_cast<std::int64_t>(full_phase<B>(w, blk));
      if (n >= 0) [[likely]] {
        // Forwards (the common case): unsigned divisions, no floor corrections.
        const auto ub = static_cast<std::uint64_t>(b);
        const std::uint64_t pos = static_cast<std::uint64_t>(ph) + static_cast<std::uint64_t>(n);
        std::uint64_t blocks;
        if constexpr (B == dynamic_block_tag) {
          blocks = blk.divide(pos);
        } else {
          blocks = pos / B;
        }
        const std::uint64_t nph = pos - blocks * ub;
        const std::uint64_t tb = static_cast<std::uint64_t>(t) + blocks;
        const std::uint64_t courses = g.threads_div.divide(tb);
        const std::uint64_t thread = tb - courses * static_cast<std::uint64_t>(g.threads);
        w = with_phase<B>((thread << g.shift) + static_cast<std::uint64_t>(a) +
                              (nph - static_cast<std::uint64_t>(ph) + courses * ub) * S,
                          nph, blk);
        return;
      }
      std::int64_t blocks, nph, courses, thread;
      blk.floor_divmod(ph + n, blocks, nph);
      floor_divmod_threads(t + blocks, courses, thread);
      const std::int64_t na = a + (nph - ph + courses * b) * static_cast<std::int64_t>(S);
      w = with_phase<B>(
          (static_cast<std::uint64_t>(thread) << g.shift) + static_cast<std::uint64_t>(na),
          static_cast<std::uint64_t>(nph), blk);
    }
  }
}

/// p - q (UPC 1.3 §6.4.2p5) for words p and q of elements of S bytes and block size B (blk,
/// qblk: their blocks, which carry a run-time block's high phase bits): the difference of the
/// two elements' positions in the block-cyclic order.
template <std::size_t B, std::uint64_t S>
inline std::ptrdiff_t word_distance(std::uint64_t p, std::uint64_t q, const block_ref<B>& blk,
                                    const block_ref<B>& qblk) noexcept {
  const shared_geometry& g = geometry;
  const std::uint64_t po = word_offset<B>(p);
  const std::uint64_t qo = word_offset<B>(q);
  const auto pa = static_cast<std::int64_t>(po & (g.segment - 1));
  const auto qa = static_cast<std::int64_t>(qo & (g.segment - 1));
  const auto s = static_cast<std::int64_t>(S);
  const std::int64_t dt =
      static_cast<std::int64_t>(po >> g.shift) - static_cast<std::int64_t>(qo >> g.shift);
  const auto b = static_cast<std::int64_t>(blk.value());
  if (b == 0) return (pa - qa) / s;
  if constexpr (word_phaseless<B>) {
    return (pa - qa) / s * static_cast<std::int64_t>(g.threads) + dt;
  } else {
    const auto pp = static_cast<std::int64_t>(full_phase<B>(p, blk));
    const auto qp = static_cast<std::int64_t>(full_phase<B>(q, qblk));
    // Block starts differ by a whole number of courses of B elements.
    std::int64_t courses, rest;
    blk.floor_divmod(((pa - pp * s) - (qa - qp * s)) / s, courses, rest);
    return (courses * static_cast<std::int64_t>(g.threads) + dt) * b + (pp - qp);
  }
}

/// Same thread and address, whatever the phase (UPC 1.3 §6.4.2p4).
inline bool word_same_place(std::uint64_t p, std::uint64_t q) noexcept {
  return ((p ^ q) & offset_mask) == 0;
}

}  // namespace pgas::detail
