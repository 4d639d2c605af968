// Tests src/models/reuse_distance.cpp against a brute-force model (a list of units, most
// recent first: an access's distance is its unit's position in the list): exact mode equal on
// random streams over few and many units, with clears, past renumbering, as the live units grow
// and shrink, and at the unit bound; the approximate mode exact below its window (among few
// units and many) and, on long streams, with scaled histograms that agree with the exact ones
// at least 92 % and scaled distances within three standard errors.

#include "src/models/reuse_distance.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <list>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

namespace {

using pgas::detail::reuse_bin;
using pgas::detail::reuse_infinite;
using pgas::detail::reuse_mode;
using pgas::detail::reuse_stack;

class brute_force {
 public:
  std::uint64_t access(std::uint64_t unit) {
    std::uint64_t d = 0;
    for (auto it = list_.begin(); it != list_.end(); ++it, ++d) {
      if (*it == unit) {
        list_.erase(it);
        list_.push_front(unit);
        return d;
      }
    }
    list_.push_front(unit);
    return reuse_infinite;
  }
  void clear() { list_.clear(); }

 private:
  std::list<std::uint64_t> list_;
};

// A stream with locality: mostly units near the last one, sometimes anywhere in `units`.
std::vector<std::uint64_t> stream(std::mt19937_64& rng, std::size_t n, std::uint64_t units) {
  std::vector<std::uint64_t> s;
  std::uint64_t at = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (rng() % 4 == 0) {
      at = rng() % units;
    } else {
      at = (at + rng() % 5) % units;
    }
    s.push_back(at * 8 + 0x1000);  // units are addresses scaled by a grain
  }
  return s;
}

struct histogram {
  std::array<double, pgas::detail::reuse_bins> bins{};
  double infinite = 0;
  double weighted_sum = 0, weight = 0;
  void add(std::uint64_t d, double w) {
    if (w == 0) return;
    if (d == reuse_infinite) {
      infinite += w;
      return;
    }
    bins[static_cast<std::size_t>(reuse_bin(d))] += w;
    weighted_sum += static_cast<double>(d) * w;
    weight += w;
  }
};

// The histograms' overlap: the sum over bins of the smaller share.
double agreement(const histogram& a, const histogram& b) {
  double ta = a.infinite, tb = b.infinite;
  for (std::size_t k = 0; k < a.bins.size(); ++k) {
    ta += a.bins[k];
    tb += b.bins[k];
  }
  double overlap = std::min(a.infinite / ta, b.infinite / tb);
  for (std::size_t k = 0; k < a.bins.size(); ++k)
    overlap += std::min(a.bins[k] / ta, b.bins[k] / tb);
  return overlap;
}

}  // namespace

TEST_CASE("reuse_bin numbers log2 bins") {
  CHECK(reuse_bin(0) == 0);
  CHECK(reuse_bin(1) == 1);
  CHECK(reuse_bin(2) == 2);
  CHECK(reuse_bin(3) == 2);
  CHECK(reuse_bin(4) == 3);
  CHECK(reuse_bin(7) == 3);
  CHECK(reuse_bin(8) == 4);
  CHECK(reuse_bin(~std::uint64_t{0} - 1) == 64);
}

TEST_CASE("exact distances of a hand-made stream") {
  reuse_stack s;
  const std::uint64_t a = 10, b = 20, c = 30;
  CHECK(s.access(a).distance == reuse_infinite);
  CHECK(s.access(a).distance == 0);
  CHECK(s.access(b).distance == reuse_infinite);
  CHECK(s.access(c).distance == reuse_infinite);
  CHECK(s.access(b).distance == 1);  // c between
  CHECK(s.access(a).distance == 2);  // b and c between, b twice
  CHECK(s.live() == 3);
  s.clear();
  CHECK(s.live() == 0);
  CHECK(s.access(a).distance == reuse_infinite);
  CHECK(s.access(a).weight == 1);
}

TEST_CASE("exact distances equal a list scan on random streams") {
  std::mt19937_64 rng(GENERATE(1, 2, 3));
  const std::uint64_t units = GENERATE(3, 40, 700, 5000);
  reuse_stack s;
  brute_force b;
  const auto st = stream(rng, 20000, units);
  for (std::size_t i = 0; i < st.size(); ++i) {
    if (i % 6000 == 5999) {  // a barrier now and then
      s.clear();
      b.clear();
    }
    const auto got = s.access(st[i]);
    REQUIRE(got.weight == 1);
    REQUIRE(got.distance == b.access(st[i]));
  }
}

TEST_CASE("exact distances stay right past many renumberings of a small stack") {
  // Two units alternate for a long time: the times reach the tree's end again and again.
  reuse_stack s;
  s.access(1);
  s.access(2);
  for (int i = 0; i < 100000; ++i)
    REQUIRE(s.access(1 + static_cast<std::uint64_t>(i % 2)).distance == 1);
  CHECK(s.live() == 2);
}

TEST_CASE("exact distances stay right as the live units grow and shrink") {
  // Many units (the map grows, the bit set renumbers large), then a few for long (renumbering
  // shrinks the set while the many stay live), then the many again: their distances span it.
  std::mt19937_64 rng(5);
  reuse_stack s;
  brute_force b;
  const auto check = [&](const std::vector<std::uint64_t>& st) {
    for (std::uint64_t u : st)
      REQUIRE(s.access(u).distance == b.access(u));
  };
  check(stream(rng, 6000, 3000));
  for (int i = 0; i < 3000; ++i) {
    const std::uint64_t u = 0x1000 + 8 * static_cast<std::uint64_t>(i % 3);
    REQUIRE(s.access(u).distance == b.access(u));
  }
  check(stream(rng, 6000, 3000));
}

TEST_CASE("the unit bound drops every unit and counts it") {
  reuse_stack s(reuse_mode::exact, 64);
  for (std::uint64_t u = 0; u < 64; ++u)
    CHECK(s.access(u).distance == reuse_infinite);
  CHECK(s.access(0).distance == 63);
  CHECK(s.overflows() == 0);
  CHECK(s.access(64).distance == reuse_infinite);  // the 65th unit: everything dropped
  CHECK(s.overflows() == 1);
  CHECK(s.live() == 1);
  CHECK(s.access(0).distance == reuse_infinite);
}

TEST_CASE("approximate distances below the window are exact") {
  std::mt19937_64 rng(7);
  reuse_stack s(reuse_mode::approximate);
  brute_force b;
  // At most the window's units: every access is in the window or a first access.
  const auto st = stream(rng, 20000, pgas::detail::reuse_window);
  for (std::uint64_t u : st) {
    const auto got = s.access(u);
    const auto want = b.access(u);
    if (want == reuse_infinite) {
      REQUIRE((got.distance == reuse_infinite || got.weight == 0));
    } else {
      REQUIRE(got.weight == 1);
      REQUIRE(got.distance == want);
    }
  }
}

TEST_CASE("approximate distances below the window stay exact among many units") {
  // More units than the window: units leave it and come back (the window's filter counts them
  // in and out), with a barrier now and then. A distance below the window is exact; one beyond
  // it is never reported as below.
  std::mt19937_64 rng(GENERATE(8, 9));
  const std::uint64_t units = GENERATE(40, 300, 5000);
  reuse_stack s(reuse_mode::approximate);
  brute_force b;
  const auto st = stream(rng, 30000, units);
  for (std::size_t i = 0; i < st.size(); ++i) {
    if (i % 7000 == 6999) {
      s.clear();
      b.clear();
    }
    const auto got = s.access(st[i]);
    const auto want = b.access(st[i]);
    if (want < pgas::detail::reuse_window) {
      REQUIRE(got.weight == 1);
      REQUIRE(got.distance == want);
    } else if (got.weight != 0 && got.distance != reuse_infinite) {
      REQUIRE(got.distance >= pgas::detail::reuse_window);
    }
  }
}

TEST_CASE("approximate histograms agree with exact ones within the bound") {
  std::mt19937_64 rng(GENERATE(11, 12, 13));
  const std::uint64_t units = GENERATE(2000, 60000);
  reuse_stack exact;
  reuse_stack approx(reuse_mode::approximate);
  histogram he, ha;
  // Far reuses: a cyclic sweep over the units, whose distance is units - 1 at each access.
  double far_exact = 0, far_approx = 0, far_weight = 0;
  for (int sweep = 0; sweep < 4; ++sweep) {
    for (std::uint64_t u = 0; u < units; ++u) {
      const auto e = exact.access(u);
      const auto a = approx.access(u);
      if (sweep > 0) {
        far_exact += static_cast<double>(e.distance);
        far_approx += static_cast<double>(a.distance) * a.weight;
        far_weight += a.weight;
      }
    }
  }
  // Within three standard errors (the header's formula; reuse_error_bound is it at 1024).
  const double d = far_exact / (3.0 * static_cast<double>(units));
  const double r = 1.0 / static_cast<double>(pgas::detail::reuse_sample_inverse);
  CHECK(d == static_cast<double>(units - 1));
  CHECK(std::abs(far_approx / far_weight - d) <= 3 * std::sqrt((1 - r) / (r * d)) * d);
  CHECK(std::sqrt((1 - r) / (r * 1024)) == Approx(pgas::detail::reuse_error_bound).epsilon(0.01));
  exact.clear();
  approx.clear();
  for (std::uint64_t u : stream(rng, 400000, units)) {
    const auto e = exact.access(u);
    he.add(e.distance, e.weight);
    const auto a = approx.access(u);
    ha.add(a.distance, a.weight);
  }
  CHECK(agreement(he, ha) >= 0.92);
  CHECK(std::abs(ha.weighted_sum / ha.weight - he.weighted_sum / he.weight) <=
        pgas::detail::reuse_error_bound * he.weighted_sum / he.weight);
}
