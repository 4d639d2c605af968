// src/models/reuse_distance.cpp — reuse_stack (src/models/reuse_distance.hpp): the exact
// stack (a hash map of last access times and a Fenwick tree over times, renumbered when the
// times reach the tree's end) and the approximate mode's exact window and sampled units.

#include "src/models/reuse_distance.hpp"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <utility>

namespace pgas::detail {

namespace {

constexpr std::uint64_t empty_unit = ~std::uint64_t{0};
constexpr std::size_t first_slots = 64;

std::uint64_t mix(std::uint64_t x) noexcept {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

}  // namespace

reuse_stack::reuse_stack(reuse_mode mode, std::size_t max_units)
    : mode_(mode),
      max_units_(std::max<std::size_t>(64, max_units)),
      map_(first_slots, slot{empty_unit, 0}),
      tree_(2 * first_slots + 1, 0) {
  std::fill(std::begin(window_), std::end(window_), empty_unit);
}

std::size_t reuse_stack::slot_of(std::uint64_t unit) const noexcept {
  const std::size_t mask = map_.size() - 1;
  std::size_t h = mix(unit) & mask;
  while (map_[h].unit != unit && map_[h].unit != empty_unit)
    h = (h + 1) & mask;
  return h;
}

void reuse_stack::grow_map() {
  std::vector<slot> old(2 * map_.size(), slot{empty_unit, 0});
  old.swap(map_);
  for (const slot& s : old)
    if (s.unit != empty_unit) map_[slot_of(s.unit)] = s;
}

void reuse_stack::tree_add(std::uint64_t time, std::int32_t delta) noexcept {
  for (std::size_t i = time; i < tree_.size(); i += i & (~i + 1))
    tree_[i] = static_cast<std::uint32_t>(static_cast<std::int64_t>(tree_[i]) + delta);
}

std::uint64_t reuse_stack::tree_prefix(std::uint64_t time) const noexcept {
  std::uint64_t sum = 0;
  for (std::size_t i = time; i > 0; i &= i - 1)
    sum += tree_[i];
  return sum;
}

// The live units keep their order and take times 1..live; the tree, sized to four times the
// live units (so that the sort of renumbering costs O(log n / 3) per access amortized), holds
// their ones.
void reuse_stack::renumber() {
  std::vector<std::pair<std::uint64_t, std::size_t>> order;  // (time, slot)
  order.reserve(live_);
  for (std::size_t i = 0; i < map_.size(); ++i)
    if (map_[i].unit != empty_unit) order.emplace_back(map_[i].time, i);
  std::sort(order.begin(), order.end());
  for (std::size_t k = 0; k < order.size(); ++k)
    map_[order[k].second].time = k + 1;
  const std::size_t size = std::max<std::size_t>(2 * first_slots, 4 * live_) + 1;
  tree_.assign(size, 0);
  // A linear build: every time up to live_ holds a one; each node adds itself to its parent.
  for (std::size_t i = 1; i <= live_; ++i)
    tree_[i] += 1;
  for (std::size_t i = 1; i < size; ++i) {
    const std::size_t parent = i + (i & (~i + 1));
    if (parent < size) tree_[parent] += tree_[i];
  }
  now_ = live_ + 1;
}

std::uint64_t reuse_stack::touch(std::uint64_t unit) {
  if (now_ == tree_.size()) renumber();
  std::size_t h = slot_of(unit);
  std::uint64_t distance = reuse_infinite;
  if (map_[h].unit == unit) {
    // The ones after the unit's last time: every live unit touched since.
    distance = live_ - tree_prefix(map_[h].time);
    tree_add(map_[h].time, -1);
  } else {
    if (live_ == max_units_) {
      clear();
      ++overflows_;
    }
    if (2 * (live_ + 1) > map_.size()) grow_map();
    h = slot_of(unit);
    map_[h].unit = unit;
    ++live_;
  }
  map_[h].time = now_;
  tree_add(now_, 1);
  ++now_;
  return distance;
}

reuse_result reuse_stack::access(std::uint64_t unit) {
  if (mode_ == reuse_mode::exact) return {touch(unit), 1};
  const std::uint64_t hash = mix(unit);
  const bool sampled = hash % reuse_sample_inverse == 0;
  const std::uint64_t far = sampled ? touch(unit) : reuse_infinite;
  // A unit whose bucket counts no unit of the window is not in it: most accesses beyond the
  // window skip the scan.
  const auto bucket = static_cast<std::uint8_t>(hash >> 32);
  std::uint32_t found = 0;
  if (bucket_count_[bucket] != 0) {
    // Every slot compared, without a branch: the slot holding the unit, if any.
    for (std::size_t k = 0; k < reuse_window; ++k)
      found |= static_cast<std::uint32_t>(window_[k] == unit) << k;
  }
  if (found != 0) {
    const std::size_t at = static_cast<std::size_t>(__builtin_ctz(found));
    const std::size_t distance = (at - head_) % reuse_window;
    for (std::size_t i = distance; i > 0; --i) {  // the more recent ones move one older
      window_[(head_ + i) % reuse_window] = window_[(head_ + i - 1) % reuse_window];
      window_bucket_[(head_ + i) % reuse_window] = window_bucket_[(head_ + i - 1) % reuse_window];
    }
    window_[head_] = unit;
    window_bucket_[head_] = bucket;
    return {distance, 1};
  }
  head_ = (head_ + reuse_window - 1) % reuse_window;  // the oldest slot becomes the newest
  if (window_[head_] != empty_unit) --bucket_count_[window_bucket_[head_]];
  window_[head_] = unit;
  window_bucket_[head_] = bucket;
  ++bucket_count_[bucket];
  ++far_;
  if (!sampled) return {reuse_infinite, 0};
  ++far_sampled_;
  const double scale = static_cast<double>(far_) / static_cast<double>(far_sampled_);
  if (far == reuse_infinite) return {reuse_infinite, scale};
  const auto scaled = static_cast<std::uint64_t>(static_cast<double>(far) * scale + 0.5);
  return {std::max<std::uint64_t>(scaled, reuse_window), scale};
}

void reuse_stack::clear() noexcept {
  if (live_ != 0) {
    std::fill(map_.begin(), map_.end(), slot{empty_unit, 0});
    std::fill(tree_.begin(), tree_.end(), 0u);
  }
  live_ = 0;
  now_ = 1;
  std::fill(std::begin(window_), std::end(window_), empty_unit);
  std::fill(std::begin(bucket_count_), std::end(bucket_count_), std::uint8_t{0});
}

}  // namespace pgas::detail
