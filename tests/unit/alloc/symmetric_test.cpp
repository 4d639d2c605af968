// Tests alloc/symmetric.cpp: first-fit offsets, alignment, coalescing, exact double-free
// detection, capacity limits and cache colouring of the symmetric heap.
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <random>
#include <vector>

#include "alloc/symmetric.hpp"

using pgas::detail::symmetric_heap;

TEST_CASE("offsets are aligned, distinct and within capacity", "[symmetric]") {
  symmetric_heap h(1 << 20);
  auto a = h.allocate(1);
  auto b = h.allocate(100);
  auto c = h.allocate(64);
  REQUIRE(a);
  REQUIRE(b);
  REQUIRE(c);
  CHECK(*a % symmetric_heap::alignment == 0);
  CHECK(*b % symmetric_heap::alignment == 0);
  CHECK(*c % symmetric_heap::alignment == 0);
  CHECK(*b >= *a + 64);
  CHECK(*c >= *b + 128);
  CHECK(h.live_bytes() == 64 + 128 + 64);
}

TEST_CASE("freed space is reused and neighbours coalesce", "[symmetric]") {
  // Three blocks and a guard above them (too large for the bytes colouring skips between the
  // three); the heap is made exactly as large as that layout, so nothing fits above the guard.
  const auto layout = [](symmetric_heap& h) {
    std::vector<std::size_t> o;
    for (std::size_t bytes : {1000, 1000, 1000, 2000})
      o.push_back(*h.allocate(bytes));
    return o;
  };
  symmetric_heap probe(1 << 20);
  const std::vector<std::size_t> at = layout(probe);
  symmetric_heap h(at[3] + 2048);
  REQUIRE(layout(h) == at);
  CHECK(h.release(at[0]) == 1024);
  CHECK(h.release(at[2]) == 1024);
  CHECK(h.release(at[1]) == 1024);
  // The three blocks and the bytes skipped between them merged into one hole below the guard,
  // which an allocation of exactly its size takes (uncoloured: nothing else can hold it).
  CHECK(h.largest_free() == at[3]);
  auto big = h.allocate(at[3]);
  REQUIRE(big);
  CHECK(*big == 0);
  CHECK_FALSE(h.allocate(1));
  CHECK(h.release(*big) == at[3]);
  CHECK(h.release(at[3]) == 2048);
  CHECK(h.live_bytes() == 0);
  CHECK(h.largest_free() == at[3] + 2048);
}

TEST_CASE("double free and unknown offsets are detected", "[symmetric]") {
  symmetric_heap h(1 << 16);
  auto a = *h.allocate(128);
  CHECK(h.release(a) == 128);
  CHECK(h.release(a) == 0);
  CHECK(h.release(12345) == 0);
}

TEST_CASE("exhaustion fails cleanly and recovers", "[symmetric]") {
  symmetric_heap h(4096);
  auto a = h.allocate(4096);
  REQUIRE(a);
  CHECK_FALSE(h.allocate(1));
  CHECK(h.largest_free() == 0);
  h.release(*a);
  CHECK(h.allocate(4096));
  CHECK_FALSE(h.allocate(~std::size_t{0}));  // size overflow on rounding
}

TEST_CASE("random allocate/free never overlaps live blocks", "[symmetric]") {
  symmetric_heap h(1 << 22);
  std::mt19937 rng(7);
  std::vector<std::pair<std::size_t, std::size_t>> live;
  for (int i = 0; i < 20000; ++i) {
    if (live.empty() || rng() % 3 != 0) {
      const std::size_t n = 1 + rng() % 5000;
      if (auto o = h.allocate(n)) {
        for (const auto& [off, len] : live) {
          REQUIRE((*o + n <= off || off + len <= *o));
        }
        live.emplace_back(*o, n);
      }
    } else {
      const std::size_t k = rng() % live.size();
      REQUIRE(h.release(live[k].first) >= live[k].second);
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(k));
    }
  }
  for (const auto& [off, len] : live)
    h.release(off);
  CHECK(h.live_bytes() == 0);
  CHECK(h.largest_free() == 1 << 22);
}

// Cache colouring: the guarantee symmetric.hpp states, offset by offset.
TEST_CASE("the k-th allocation starts at its colour", "[symmetric][colour]") {
  symmetric_heap h(std::size_t{1} << 40, symmetric_heap::alignment);
  std::mt19937 rng(11);
  for (std::size_t k = 0; k < 3000; ++k) {
    // Sizes from one line to 2^25 doubles, mostly exact powers of two (the worst case).
    const std::size_t bytes = rng() % 4 != 0 ? std::size_t{64} << rng() % 23 : 1 + rng() % 200000;
    const auto o = h.allocate(bytes);
    REQUIRE(o);
    const std::size_t window = symmetric_heap::window_of(bytes);
    CHECK(window == std::min<std::size_t>(65536, std::max<std::size_t>(64, std::bit_ceil(bytes))));
    CHECK(*o % window == k * 5440 % window);
    CHECK(*o % symmetric_heap::alignment == 0);
  }
}

TEST_CASE("equal-size allocations in a row do not alias modulo 4 KiB or 64 KiB",
          "[symmetric][colour]") {
  for (const std::size_t bytes : {std::size_t{4096}, std::size_t{65536}, std::size_t{1} << 28}) {
    symmetric_heap h(std::size_t{1} << 40, symmetric_heap::alignment);
    std::vector<std::size_t> o;
    for (int k = 0; k < 1024; ++k)
      o.push_back(*h.allocate(bytes));
    for (std::size_t i = 0; i < o.size(); ++i) {
      // Consecutive ones 21 cache lines apart modulo a page (both ways round: >= 1344 bytes).
      if (i + 1 < o.size()) CHECK((o[i + 1] - o[i]) % 4096 == 1344);
      for (std::size_t j = i + 1; j < o.size() && j < i + 64; ++j)
        CHECK(o[i] % 4096 != o[j] % 4096);
      if (bytes >= 65536) {
        for (std::size_t j = i + 1; j < o.size(); ++j)
          CHECK(o[i] % 65536 != o[j] % 65536);
      }
    }
  }
}

TEST_CASE("bytes skipped for colour are reused and not counted as live", "[symmetric][colour]") {
  symmetric_heap h(std::size_t{1} << 30, symmetric_heap::alignment);
  const std::size_t big = std::size_t{1} << 20;
  const auto a = *h.allocate(big);
  const auto b = *h.allocate(big);
  CHECK(b - (a + big) < symmetric_heap::colour_window);  // a window at most
  CHECK(h.live_bytes() == 2 * big);
  // One-line allocations (window 64: no colour) fill the bytes below a, then between a and b.
  std::size_t below_b = 0;
  for (std::size_t i = 0; i < (b - a - big + a - 64) / 64; ++i) {
    const auto o = *h.allocate(64);
    CHECK(o < b);
    if (o > a) ++below_b;
  }
  CHECK(below_b == (b - a - big) / 64);
  CHECK(h.live_bytes() == 2 * big + (b - big) - 64);
  CHECK(*h.allocate(64) > b);
}

TEST_CASE("contains() ends an allocation where it was asked to, not at its padding",
          "[symmetric]") {
  symmetric_heap h(1 << 20, 64);
  const auto a = h.allocate(16);
  const auto b = h.allocate(100);
  REQUIRE(a);
  REQUIRE(b);
  CHECK(h.contains(*a, 16));
  CHECK(h.contains(*a + 15, 1));
  CHECK_FALSE(h.contains(*a, 17));      // one byte into the alignment's padding
  CHECK_FALSE(h.contains(*a + 16, 1));  // the padding itself
  CHECK(h.contains(*b + 99, 1));
  CHECK_FALSE(h.contains(*b + 96, 8));  // past byte 100
  CHECK(h.live_bytes() == 64 + 128);    // placed, padding included
  h.release(*a);
  CHECK_FALSE(h.contains(*a, 1));
}
