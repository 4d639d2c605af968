// Tests alloc/symmetric.cpp: first-fit offsets, alignment, coalescing, exact double-free
// detection and capacity limits of the symmetric heap.
#include <catch2/catch.hpp>

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
  symmetric_heap h(1 << 20);
  auto a = *h.allocate(1000);
  auto b = *h.allocate(1000);
  auto c = *h.allocate(1000);
  auto guard = *h.allocate(64);
  CHECK(h.release(a) == 1024);
  CHECK(h.release(c) == 1024);
  CHECK(h.release(b) == 1024);
  // a, b and c merged into one hole of 3072 bytes at a.
  auto big = h.allocate(3000);
  REQUIRE(big);
  CHECK(*big == a);
  CHECK(h.release(*big) == 3008);
  CHECK(h.release(guard) == 64);
  CHECK(h.live_bytes() == 0);
  CHECK(h.largest_free() == 1 << 20);
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
