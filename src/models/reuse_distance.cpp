// src/models/reuse_distance.cpp — reuse_stack (src/models/reuse_distance.hpp): the exact
// stack (a hash map of last access times, a bit set over times with a Fenwick tree of its
// words' ones, renumbered when the times reach the set's end) and the approximate mode's exact
// window and sampled units.

#include "src/models/reuse_distance.hpp"

#include <algorithm>
#include <bit>
#include <iterator>

namespace pgas::detail {

namespace {

constexpr std::uint64_t empty_unit = ~std::uint64_t{0};
constexpr std::size_t first_slots = 64;
constexpr std::size_t first_words = 4;  // 256 times
constexpr std::size_t word_bits = 64;

}  // namespace

reuse_stack::reuse_stack(reuse_mode mode, std::size_t max_units)
    : mode_(mode),
      max_units_(std::max<std::size_t>(64, max_units)),
      map_(first_slots, slot{empty_unit, 0}),
      bits_(first_words, 0),
      counts_(first_words + 1, 0),
      owner_(first_words * word_bits, 0) {
  window_clear();
}

void reuse_stack::window_clear() noexcept {
  std::fill(std::begin(window_), std::end(window_), empty_unit);
  std::fill(std::begin(window_bucket_), std::end(window_bucket_), std::uint16_t{0});
  std::fill(std::begin(bucket_count_), std::end(bucket_count_), std::uint8_t{0});
  bucket_count_[0] = reuse_window;
}

std::size_t reuse_stack::slot_of(std::uint64_t unit, std::uint64_t hash) const noexcept {
  const std::size_t mask = map_.size() - 1;
  std::size_t h = hash & mask;
  while (map_[h].unit != unit && map_[h].unit != empty_unit)
    h = (h + 1) & mask;
  return h;
}

// The map doubles; each live time's owner follows its unit to the new slot.
void reuse_stack::grow_map() {
  std::vector<slot> old(2 * map_.size(), slot{empty_unit, 0});
  old.swap(map_);
  for (const slot& s : old) {
    if (s.unit == empty_unit) continue;
    const std::size_t h = slot_of(s.unit, reuse_hash(s.unit));
    map_[h] = s;
    owner_[s.time] = static_cast<std::uint32_t>(h);
  }
}

void reuse_stack::count_add(std::size_t word, std::int32_t delta) noexcept {
  for (std::size_t i = word + 1; i < counts_.size(); i += i & (~i + 1))
    counts_[i] = static_cast<std::uint32_t>(static_cast<std::int64_t>(counts_[i]) + delta);
}

std::uint64_t reuse_stack::count_before(std::size_t word) const noexcept {
  std::uint64_t sum = 0;
  for (std::size_t i = word; i > 0; i &= i - 1)
    sum += counts_[i];
  return sum;
}

// The live units keep their order and take times 0..live-1, found in order by walking the bit
// set (each time's owner names its slot; a time's new number is never above its old one, so
// owner_ is compacted in place). The set is then sized to four times the live units, so that
// the walk costs O(1/3) per access amortized, and the tree rebuilt in linear time.
void reuse_stack::renumber() {
  std::size_t k = 0;
  for (std::size_t w = 0; w < bits_.size(); ++w) {
    for (std::uint64_t b = bits_[w]; b != 0; b &= b - 1) {
      const std::uint32_t s = owner_[w * word_bits + static_cast<std::size_t>(std::countr_zero(b))];
      map_[s].time = k;
      owner_[k++] = s;
    }
  }
  const std::size_t words = std::max(first_words, (4 * live_ + word_bits - 1) / word_bits);
  owner_.resize(words * word_bits);
  bits_.assign(words, 0);
  for (std::size_t w = 0; w < live_ / word_bits; ++w)
    bits_[w] = ~std::uint64_t{0};
  if (live_ % word_bits != 0)
    bits_[live_ / word_bits] = (std::uint64_t{1} << (live_ % word_bits)) - 1;
  counts_.assign(words + 1, 0);
  for (std::size_t i = 1; i <= words; ++i) {
    counts_[i] += static_cast<std::uint32_t>(std::popcount(bits_[i - 1]));
    const std::size_t parent = i + (i & (~i + 1));
    if (parent <= words) counts_[parent] += counts_[i];
  }
  now_ = live_;
}

std::uint64_t reuse_stack::touch(std::uint64_t unit, std::uint64_t hash) {
  if (now_ == bits_.size() * word_bits) renumber();
  std::size_t h = slot_of(unit, hash);
  std::uint64_t distance = reuse_infinite;
  if (map_[h].unit == unit) {
    // The ones after the unit's last time: every live unit touched since.
    const std::uint64_t time = map_[h].time;
    const std::size_t word = time / word_bits;
    const std::uint64_t upto = ~std::uint64_t{0} >> (word_bits - 1 - time % word_bits);
    distance =
        live_ - count_before(word) - static_cast<std::uint64_t>(std::popcount(bits_[word] & upto));
    bits_[word] &= ~(std::uint64_t{1} << (time % word_bits));
    count_add(word, -1);
  } else {
    if (live_ == max_units_) {
      clear();
      ++overflows_;
    }
    if (2 * (live_ + 1) > map_.size()) grow_map();
    h = slot_of(unit, hash);
    map_[h].unit = unit;
    ++live_;
  }
  map_[h].time = now_;
  owner_[now_] = static_cast<std::uint32_t>(h);
  bits_[now_ / word_bits] |= std::uint64_t{1} << (now_ % word_bits);
  count_add(now_ / word_bits, 1);
  ++now_;
  return distance;
}

std::uint64_t reuse_stack::window_hit(std::uint64_t unit) noexcept {
  std::size_t distance = 0;
  while (window_[(head_ + distance) % reuse_window] != unit)
    ++distance;
  const std::uint16_t bucket = window_bucket_[(head_ + distance) % reuse_window];
  for (std::size_t i = distance; i > 0; --i) {  // the more recent ones move one older
    window_[(head_ + i) % reuse_window] = window_[(head_ + i - 1) % reuse_window];
    window_bucket_[(head_ + i) % reuse_window] = window_bucket_[(head_ + i - 1) % reuse_window];
  }
  window_[head_] = unit;
  window_bucket_[head_] = bucket;
  return distance;
}

// A sampled unit's exact stack is kept on every access, so that its distance beyond the window
// is known; within the window the window's exact distance counts instead.
reuse_result reuse_stack::access_sampled(std::uint64_t unit, std::uint64_t hash) {
  const std::uint64_t far = touch(unit, hash);
  const std::size_t bucket = window_bucket(hash);
  if (bucket_count_[bucket] != 0 && window_has(unit)) return {window_hit(unit), 1};
  window_push(unit, bucket);
  ++far_;
  ++far_sampled_;
  const double scale = static_cast<double>(far_) / static_cast<double>(far_sampled_);
  if (far == reuse_infinite) return {reuse_infinite, scale};
  const auto scaled = static_cast<std::uint64_t>(static_cast<double>(far) * scale + 0.5);
  return {std::max<std::uint64_t>(scaled, reuse_window), scale};
}

void reuse_stack::clear() noexcept {
  if (live_ != 0) {
    std::fill(map_.begin(), map_.end(), slot{empty_unit, 0});
    std::fill(bits_.begin(), bits_.end(), 0u);
    std::fill(counts_.begin(), counts_.end(), 0u);
  }
  live_ = 0;
  now_ = 0;
  window_clear();
}

}  // namespace pgas::detail
