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

  explicit symmetric_heap(std::size_t capacity) noexcept : capacity_(capacity) {}

  /// An offset for `bytes` (> 0), or nullopt when the region cannot hold it.
  std::optional<std::size_t> allocate(std::size_t bytes);
  /// Frees the allocation at `offset`; returns its size, or 0 if none is live there.
  std::size_t release(std::size_t offset);
  /// The largest allocation that could succeed now.
  std::size_t largest_free() const;
  /// Bytes live.
  std::size_t live_bytes() const;

 private:
  mutable std::mutex mutex_;
  std::size_t capacity_;
  std::size_t top_ = 0;                      // everything above is free
  std::map<std::size_t, std::size_t> free_;  // offset -> size, below top_
  std::map<std::size_t, std::size_t> live_;  // offset -> size
  std::size_t live_bytes_ = 0;
};

}  // namespace pgas::detail
