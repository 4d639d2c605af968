// alloc/symmetric.cpp — the symmetric heap (see symmetric.hpp): first fit, coalescing frees,
// exact live tracking.

#include "alloc/symmetric.hpp"

#include <algorithm>
#include <iterator>

namespace pgas::detail {

std::optional<std::size_t> symmetric_heap::allocate(std::size_t bytes) {
  const std::size_t size = (bytes + alignment - 1) / alignment * alignment;
  if (size < bytes) return std::nullopt;
  std::lock_guard g(mutex_);
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second < size) continue;
    const std::size_t offset = it->first;
    const std::size_t rest = it->second - size;
    free_.erase(it);
    if (rest != 0) free_.emplace(offset + size, rest);
    live_.emplace(offset, size);
    live_bytes_ += size;
    return offset;
  }
  if (size > capacity_ - top_) return std::nullopt;
  const std::size_t offset = top_;
  top_ += size;
  live_.emplace(offset, size);
  live_bytes_ += size;
  return offset;
}

std::size_t symmetric_heap::release(std::size_t offset) {
  std::lock_guard g(mutex_);
  auto live = live_.find(offset);
  if (live == live_.end()) return 0;
  std::size_t start = offset;
  std::size_t size = live->second;
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
  return offset - it->first <= it->second && bytes <= it->second - (offset - it->first);
}

std::size_t symmetric_heap::live_bytes() const {
  std::lock_guard g(mutex_);
  return live_bytes_;
}

}  // namespace pgas::detail
