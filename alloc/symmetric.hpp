// alloc/symmetric.hpp — the symmetric heap: offsets into the symmetric region, the same in
// every segment, for collective (upc_all_alloc) and global (upc_global_alloc) allocations.
//
// First fit over an address-ordered free list with coalescing; a live map gives exact double
// free detection. One heap per job, thread-safe (global_alloc may be called by any thread).
#pragma once

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
  /// True when [offset, offset + bytes) lies inside one live allocation.
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
  std::map<std::size_t, std::size_t> live_;  // offset -> size
  std::size_t live_bytes_ = 0;
};

}  // namespace pgas::detail
