// alloc/symmetric.hpp — the symmetric heap: offsets into the symmetric region, the same in
// every segment, for collective (upc_all_alloc) and global (upc_global_alloc) allocations.
//
// First fit over an address-ordered free list with coalescing; a live map gives exact double
// free detection. One heap per job, thread-safe (global_alloc may be called by any thread).
//
// Cache colouring. Packed end to end, equal-sized allocations would start exactly a power of
// two apart, so vectors read together would map to the same cache sets and their loads and
// stores would 4K-alias (a dot product of two 2^25-double arrays ran 1.5x slower than on
// padded memory). So the k-th allocation (k counts every successful allocate()) starts at an
// offset congruent to k * colour_step modulo its colour window, min(colour_window,
// bit_ceil(size)): colour_step is 85 cache lines (4 KiB + 21 lines), odd in lines, so
//   * two allocations of at least 4 KiB whose numbers differ by d, 0 < d < 64, start at
//     different offsets modulo 4096 (consecutive ones 21 lines apart: three vectors in a row
//     sit a third of a page from each other), and
//   * two of at least 64 KiB whose numbers differ by d, 0 < d < 1024, start at different
//     offsets modulo 64 KiB (the L2 set index range).
// The bytes skipped to reach a colour stay free for later allocations (first fit fills them);
// an allocation costs at most one window (< 64 KiB, 1/32 of a huge page) of address space and
// committed memory, and none of the allocated bytes. When no free block or the top can hold an
// allocation at its colour, it is placed uncoloured rather than refused. Offsets stay multiples
// of `alignment`.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <map>
#include <mutex>
#include <optional>

namespace pgas::detail {

class symmetric_heap {
 public:
  /// Offsets are aligned to this (a cache line: parts of different allocations never share
  /// one).
  static constexpr std::size_t alignment = 64;
  /// Cache colouring (see above): the colour window of allocations of 64 KiB and more, and the
  /// step between consecutive allocations' colours.
  static constexpr std::size_t colour_window = std::size_t{64} << 10;
  static constexpr std::size_t colour_step = 85 * alignment;

  /// The colour window of an allocation of `bytes` bytes: min(colour_window, bit_ceil(bytes)),
  /// at least `alignment`.
  static constexpr std::size_t window_of(std::size_t bytes) noexcept {
    return bytes >= colour_window ? colour_window : std::max(alignment, std::bit_ceil(bytes));
  }
  /// The offset, modulo window_of(bytes), at which the allocation numbered `k` of `bytes`
  /// bytes starts when it is coloured.
  static constexpr std::size_t colour_of(std::size_t k, std::size_t bytes) noexcept {
    const std::size_t window = window_of(bytes);
    return (k % window) * colour_step % window;
  }

  /// A heap handing out offsets in [start, capacity). The space starts at 64 so that no
  /// allocation sits at offset 0 of segment 0: the null pointer-to-shared is the zero word.
  explicit symmetric_heap(std::size_t capacity, std::size_t start = 0) noexcept
      : capacity_(capacity), top_(start) {}

  /// An offset for `bytes` (> 0), or nullopt when the region cannot hold it.
  std::optional<std::size_t> allocate(std::size_t bytes);
  /// Frees the allocation at `offset`; returns its size, or 0 if none is live there.
  std::size_t release(std::size_t offset);
  /// The largest allocation that could succeed now.
  std::size_t largest_free() const;
  /// True when [offset, offset + bytes) lies inside one live allocation, as asked for (the
  /// alignment's padding after it is outside).
  bool contains(std::size_t offset, std::size_t bytes) const;
  /// Bytes live.
  std::size_t live_bytes() const;

 private:
  // Ends the process (status 70, an internal error) when the free list and live map disagree;
  // called after every change in builds with debug_level >= 2. The mutex is held.
  void check_invariants_locked() const;

  mutable std::mutex mutex_;
  std::size_t capacity_;
  std::size_t top_ = 0;                      // everything above is free
  std::map<std::size_t, std::size_t> free_;  // offset -> size, below top_
  struct live_block {
    std::size_t size;   // as placed: `asked` rounded up to the alignment
    std::size_t asked;  // what the caller asked for, which contains() checks against
  };
  std::map<std::size_t, live_block> live_;  // offset -> block
  std::size_t live_bytes_ = 0;
  std::size_t allocations_ = 0;  // successful allocate() calls: the next one's colour number
};

}  // namespace pgas::detail
