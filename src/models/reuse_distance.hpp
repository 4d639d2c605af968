// src/models/reuse_distance.hpp — reuse distances of one thread's stream of accesses, the
// engine behind `pgasrun --reuse` (src/job/reuse.hpp records with it); pure, so that it is
// tested alone against a brute-force model.
//
// The reuse distance of an access to an address unit is the number of distinct units the
// stream touched since the previous access to the same unit (0 when nothing else came
// between); the first access to a unit, or the first after clear(), has none ("infinite").
//
// Exact mode (Bennett and Kruskal's method over access times): a hash map holds each live
// unit's last access time and a bit set over times holds a 1 at the last access of every live
// unit, with a Fenwick tree counting the ones of each 64-bit word, so the distance of an access
// at a unit last touched at time p is the number of ones after p: O(log(n / 64)) per access
// for n live units, on a tree that fits the first-level cache up to about 2^17 units. Times are
// renumbered (the live ones kept in order, walking the bit set and each time's owner: linear,
// no sort) when they reach the set's end, so the set never grows past four times the live units
// however long the stream is.
//
// Approximate mode, for long runs: the last reuse_window distinct units are kept exactly in a
// move-to-front list (a ring: a distance below the window is exact); beyond it only units whose
// hash falls in a fixed 1/reuse_sample_inverse of the hash space are followed, in an exact
// stack of their own (spatial sampling as SHARDS, Waldspurger et al. 2015). A sampled unit's
// distance d_s there stands for d_s * s units and its access for s accesses, where s is the
// stream's own ratio so far of accesses beyond the window to those of sampled units (about
// reuse_sample_inverse; the observed ratio corrects the sample's luck, as SHARDS's adjustment
// does, so that a loop over n units reads as n and not as 8 times the units that fell in the
// sample). Sampled units are a hash-random fraction R = 1/reuse_sample_inverse of all units,
// so a scaled distance has a relative standard error of at most sqrt((1 - R) / (R d)):
// reuse_error_bound is that error at d = 1024 (0.083; 0.26 at d = 128, 0.023 at d = 2^14).
// The sampling test comes first: an unsampled unit (7 in 8) costs a hash, a look at the
// window's bucket counts (the compare of its 32 slots only when the unit's bucket counts one of
// them) and the ring's step, inline, and never reaches the exact stack's map.
//
// Thread safety: a reuse_stack is used by one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace pgas::detail {

enum class reuse_mode : std::uint8_t { exact, approximate };

/// The distance of a first access (no earlier access since the last clear).
inline constexpr std::uint64_t reuse_infinite = ~std::uint64_t{0};
/// Approximate mode: distances below this many units are exact.
inline constexpr std::size_t reuse_window = 32;
/// Approximate mode: one unit in this many (by hash) is followed beyond the window.
inline constexpr std::uint64_t reuse_sample_inverse = 8;
/// Approximate mode: the relative standard error of a scaled distance of 1024 units.
inline constexpr double reuse_error_bound = 0.0827;
/// Bins of the histograms: bin 0 holds d = 0, bin k >= 1 holds 2^(k-1) <= d < 2^k.
inline constexpr int reuse_bins = 65;

/// The log2 bin of a finite distance.
constexpr int reuse_bin(std::uint64_t d) noexcept {
  return d == 0 ? 0 : 64 - __builtin_clzll(d);
}

/// The hash of a unit that places it in the map and decides its sampling (a 64-bit finalizer:
/// every input bit moves every output bit, so strided addresses sample evenly).
constexpr std::uint64_t reuse_hash(std::uint64_t x) noexcept {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

/// Approximate mode: whether the unit of `hash` is followed beyond the window (bits of the hash
/// that the map's slot, its low bits, does not use: sampled units spread over the whole map).
constexpr bool reuse_sampled(std::uint64_t hash) noexcept {
  return (hash >> 40) % reuse_sample_inverse == 0;
}

/// What one access found: its distance (reuse_infinite for a first access) and how many
/// accesses it stands for (1 in exact mode; 0 when the approximate mode did not follow it).
struct reuse_result {
  std::uint64_t distance = reuse_infinite;
  double weight = 1;
};

/// One thread's last-use data.
class reuse_stack {
 public:
  /// `max_units`: the most live units kept (at least 64); an access that would pass it drops
  /// every unit first (as clear() does, counted by overflows()), so memory stays bounded at
  /// about 80 bytes per unit.
  explicit reuse_stack(reuse_mode mode = reuse_mode::exact, std::size_t max_units = 1u << 24);

  /// Records an access to `unit` (any value but ~0) and returns its distance.
  reuse_result access(std::uint64_t unit) {
    const std::uint64_t hash = reuse_hash(unit);
    if (mode_ == reuse_mode::exact) return {touch(unit, hash), 1};
    if (reuse_sampled(hash)) return access_sampled(unit, hash);
    const std::size_t bucket = window_bucket(hash);
    if (bucket_count_[bucket] != 0 && window_has(unit)) return {window_hit(unit), 1};
    window_push(unit, bucket);
    ++far_;
    return {reuse_infinite, 0};
  }
  /// Forgets every unit's last use (a barrier or strict access): the next access to each is a
  /// first access again.
  void clear() noexcept;

  reuse_mode mode() const noexcept { return mode_; }
  /// How many units the exact stack holds now.
  std::size_t live() const noexcept { return live_; }
  /// How many times the unit bound made the stack drop everything.
  std::uint64_t overflows() const noexcept { return overflows_; }

 private:
  // The exact stack: distance of `unit` (whose reuse_hash is `hash`), reuse_infinite when not
  // live.
  std::uint64_t touch(std::uint64_t unit, std::uint64_t hash);
  std::size_t slot_of(std::uint64_t unit, std::uint64_t hash) const noexcept;
  void grow_map();
  void renumber();
  void count_add(std::size_t word, std::int32_t delta) noexcept;
  std::uint64_t count_before(std::size_t word) const noexcept;
  // Approximate mode: a sampled unit's access; the bucket of a unit's hash (a unit whose bucket
  // counts no unit of the window is not in it: with 4096 buckets for 32 slots, all but about
  // 1 % of the accesses beyond the window skip the compare, on a branch that predicts well);
  // whether the window holds `unit`; the distance of `unit`, which the window holds, moving it
  // to the front; a unit not in the window becomes its most recent, the oldest leaving it.
  reuse_result access_sampled(std::uint64_t unit, std::uint64_t hash);
  static std::size_t window_bucket(std::uint64_t hash) noexcept {
    return (hash >> 20) % window_buckets;
  }
  bool window_has(std::uint64_t unit) const noexcept {
    // Eight units a vector, compared and or-ed together, one test at the end: no branch per
    // slot and no mask to assemble (the miss is the common case beyond the window).
    using lanes = std::uint64_t __attribute__((vector_size(64)));
    constexpr std::size_t per = sizeof(lanes) / sizeof(std::uint64_t);
    lanes any{};
    for (std::size_t k = 0; k < reuse_window; k += per) {
      lanes v;
      std::memcpy(&v, window_ + k, sizeof v);
      any |= reinterpret_cast<lanes>(v == unit);
    }
    std::uint64_t r = 0;
    for (std::size_t i = 0; i < per; ++i)
      r |= any[i];
    return r != 0;
  }
  std::uint64_t window_hit(std::uint64_t unit) noexcept;
  void window_push(std::uint64_t unit, std::size_t bucket) noexcept {
    head_ = (head_ + reuse_window - 1) % reuse_window;  // the oldest slot becomes the newest
    --bucket_count_[window_bucket_[head_]];
    window_[head_] = unit;
    window_bucket_[head_] = static_cast<std::uint16_t>(bucket);
    ++bucket_count_[bucket];
  }
  void window_clear() noexcept;

  struct slot {
    std::uint64_t unit;
    std::uint64_t time;
  };
  reuse_mode mode_;
  std::size_t max_units_;
  std::vector<slot> map_;              // open addressing, unit ~0 empty
  std::vector<std::uint64_t> bits_;    // a 1 at each live unit's time (times 0..64*size-1)
  std::vector<std::uint32_t> counts_;  // Fenwick tree over bits_'s words (1-based): their ones
  std::vector<std::uint32_t> owner_;   // each time's map slot (where its bit is set)
  std::uint64_t now_ = 0;              // the next access's time
  std::size_t live_ = 0;
  std::uint64_t overflows_ = 0;
  // Approximate mode: the most recent distinct units, a ring whose most recent is at head_
  // and the older ones after it (~0: empty, counted in bucket 0), each slot's bucket and the
  // window's units per bucket; the accesses beyond the window, and of them those of sampled
  // units.
  static constexpr std::size_t window_buckets = 4096;
  std::uint64_t window_[reuse_window];
  std::uint16_t window_bucket_[reuse_window];
  std::uint8_t bucket_count_[window_buckets];
  std::size_t head_ = 0;
  std::uint64_t far_ = 0, far_sampled_ = 0;
};

}  // namespace pgas::detail
