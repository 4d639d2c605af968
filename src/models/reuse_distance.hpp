// src/models/reuse_distance.hpp — reuse distances of one thread's stream of accesses, the
// engine behind `pgasrun --reuse` (src/job/reuse.hpp records with it); pure, so that it is
// tested alone against a brute-force model.
//
// The reuse distance of an access to an address unit is the number of distinct units the
// stream touched since the previous access to the same unit (0 when nothing else came
// between); the first access to a unit, or the first after clear(), has none ("infinite").
//
// Exact mode (Bennett and Kruskal's method over access times): a hash map holds each live
// unit's last access time and a Fenwick tree over times holds a 1 at the last access of every
// live unit, so the distance of an access at a unit last touched at time p is the number of
// ones after p: O(log n) per access for n live units. Times are renumbered (the live ones kept
// in order, the tree rebuilt) when they reach the tree's end, so the tree never grows past
// twice the live units however long the stream is.
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
// Unsampled units beyond the window cost a hash and record nothing.
//
// Thread safety: a reuse_stack is used by one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
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
  reuse_result access(std::uint64_t unit);
  /// Forgets every unit's last use (a barrier or strict access): the next access to each is a
  /// first access again.
  void clear() noexcept;

  reuse_mode mode() const noexcept { return mode_; }
  /// How many units the exact stack holds now.
  std::size_t live() const noexcept { return live_; }
  /// How many times the unit bound made the stack drop everything.
  std::uint64_t overflows() const noexcept { return overflows_; }

 private:
  // The exact stack: distance of `unit`, reuse_infinite when not live.
  std::uint64_t touch(std::uint64_t unit);
  std::size_t slot_of(std::uint64_t unit) const noexcept;
  void grow_map();
  void renumber();
  void tree_add(std::uint64_t time, std::int32_t delta) noexcept;
  std::uint64_t tree_prefix(std::uint64_t time) const noexcept;

  struct slot {
    std::uint64_t unit;
    std::uint64_t time;
  };
  reuse_mode mode_;
  std::size_t max_units_;
  std::vector<slot> map_;            // open addressing, unit ~0 empty
  std::vector<std::uint32_t> tree_;  // Fenwick tree over times 1..tree_.size()-1
  std::uint64_t now_ = 1;            // the next access's time
  std::size_t live_ = 0;
  std::uint64_t overflows_ = 0;
  // Approximate mode: the most recent distinct units, a ring whose most recent is at head_
  // and the older ones after it (~0: empty); the accesses beyond the window, and of them those
  // of sampled units.
  std::uint64_t window_[reuse_window];
  std::uint8_t window_bucket_[reuse_window] = {};  // each slot's bucket (bits 32-39 of its hash)
  std::uint8_t bucket_count_[256] = {};            // the window's units per bucket
  std::size_t head_ = 0;
  std::uint64_t far_ = 0, far_sampled_ = 0;
};

}  // namespace pgas::detail
