// alloc/symmetric.cpp — the symmetric heap (see symmetric.hpp): first fit at each allocation's
// cache colour, coalescing frees, exact live tracking.

#include "alloc/symmetric.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <tuple>

#include <pgas/config.hpp>

#include "src/base/faults.hpp"

namespace pgas::detail {

void symmetric_heap::check_invariants_locked() const {
  // Debug level 2: every block aligned and below the bump top, free and live blocks disjoint
  // and in address order, free neighbours coalesced (and none left touching the top), and the
  // live byte count exact.
  std::size_t at = 0;
  std::size_t live = 0;
  bool previous_free = false;
  auto f = free_.begin();
  auto l = live_.begin();
  while (f != free_.end() || l != live_.end()) {
    const bool is_free = l == live_.end() || (f != free_.end() && f->first < l->first);
    std::size_t offset = 0, size = 0;
    if (is_free) {
      std::tie(offset, size) = *f++;
    } else {
      offset = l->first;
      size = l->second.size;
      if (l->second.asked == 0 || l->second.asked > size) {
        fault_end_job(fmt::format("internal error: symmetric heap: the block at {:#x} was asked "
                                  "for {} bytes and placed in {}",
                                  offset, l->second.asked, size),
                      70);
      }
      ++l;
    }
    const char* what = nullptr;
    if (offset % alignment != 0 || size % alignment != 0 || size == 0) {
      what = "a block is not aligned or empty";
    } else if (offset < at) {
      what = "two blocks overlap";
    } else if (offset + size > top_) {
      what = "a block lies above the bump top";
    } else if (is_free && previous_free && offset == at) {
      what = "two free neighbours are not coalesced";
    } else if (is_free && offset + size == top_) {
      what = "a free block touches the bump top";
    }
    if (what != nullptr) {
      fault_end_job(fmt::format("internal error: symmetric heap: {} (block at {:#x}, {} bytes; "
                                "top {:#x})",
                                what, offset, size, top_),
                    70);
    }
    if (!is_free) live += size;
    previous_free = is_free;
    at = offset + size;
  }
  if (live != live_bytes_) {
    fault_end_job(fmt::format("internal error: symmetric heap: {} live bytes counted, {} in the "
                              "live map",
                              live_bytes_, live),
                  70);
  }
}

namespace {

// The first offset at or after `from` that is congruent to `colour` modulo `window`.
std::size_t coloured_start(std::size_t from, std::size_t colour, std::size_t window) noexcept {
  return from + (colour + window - from % window) % window;
}

}  // namespace

std::optional<std::size_t> symmetric_heap::allocate(std::size_t bytes) {
  const std::size_t size = (bytes + alignment - 1) / alignment * alignment;
  if (size < bytes) return std::nullopt;
  std::lock_guard g(mutex_);
  const std::size_t colour = colour_of(allocations_, size);
  const std::size_t window = window_of(size);
  const auto placed = [&](std::size_t offset) {
    live_.emplace(offset, live_block{size, bytes});
    live_bytes_ += size;
    ++allocations_;
    if constexpr (config::debug_level >= 2) check_invariants_locked();
    return offset;
  };
  // First fit at the allocation's colour, then (rather than fail) first fit anywhere.
  for (const bool coloured : {true, false}) {
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      const auto [from, length] = *it;
      const std::size_t start = coloured ? coloured_start(from, colour, window) : from;
      if (start - from >= length || length - (start - from) < size) continue;
      free_.erase(it);
      if (start != from) free_.emplace(from, start - from);
      if (start + size != from + length) free_.emplace(start + size, from + length - start - size);
      return placed(start);
    }
    const std::size_t start = coloured ? coloured_start(top_, colour, window) : top_;
    if (start > capacity_ || size > capacity_ - start) continue;
    if (start != top_) free_.emplace(top_, start - top_);  // the skipped bytes stay free
    top_ = start + size;
    return placed(start);
  }
  return std::nullopt;
}

std::size_t symmetric_heap::release(std::size_t offset) {
  std::lock_guard g(mutex_);
  auto live = live_.find(offset);
  if (live == live_.end()) return 0;
  std::size_t start = offset;
  std::size_t size = live->second.size;
  const std::size_t freed = size;
  live_.erase(live);
  live_bytes_ -= freed;
  // Coalesce with the free neighbours on either side.
  auto next = free_.lower_bound(start);
  if (next != free_.end() && next->first == start + size) {
    size += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      start = prev->first;
      size += prev->second;
      free_.erase(prev);
    }
  }
  if (start + size == top_) {
    top_ = start;  // give the tail back to the bump region
  } else {
    free_.emplace(start, size);
  }
  if constexpr (config::debug_level >= 2) check_invariants_locked();
  return freed;
}

std::size_t symmetric_heap::largest_free() const {
  std::lock_guard g(mutex_);
  std::size_t best = capacity_ - top_;
  for (const auto& [offset, size] : free_)
    best = std::max(best, size);
  return best;
}

bool symmetric_heap::contains(std::size_t offset, std::size_t bytes) const {
  std::lock_guard g(mutex_);
  auto it = live_.upper_bound(offset);
  if (it == live_.begin()) return false;
  --it;
  const std::size_t asked = it->second.asked;
  return offset - it->first <= asked && bytes <= asked - (offset - it->first);
}

std::size_t symmetric_heap::live_bytes() const {
  std::lock_guard g(mutex_);
  return live_bytes_;
}

}  // namespace pgas::detail
